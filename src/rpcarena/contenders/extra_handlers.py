"""Handlers a seed adds to the Python servers of one framework (the predictions seed adds its
Redis-backed GetPredictions to the grpcio server and to the FastAPI application).

The server's process (`rpcarena.python_server.serve`) registers the seeds' (`rpcarena.seeds.EXTRA_HANDLERS`)
and the user's schema's, and a server asks for them here, so no mechanism module imports a seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# Given the framework's server (a grpc.Server, a FastAPI app) and the run's backing services' URLs.
Extra = Callable[[Any, Mapping[str, str]], None]

_EXTRAS: dict[str, list[Extra]] = {}


def register(framework: str, extra: Extra) -> None:
    """Add `extra` to every server of `framework` ("grpcio", "fastapi") started from now on."""
    _EXTRAS.setdefault(framework, []).append(extra)


def add_to(framework: str, server: Any, services: Mapping[str, str]) -> None:
    """Give a server of `framework` the handlers every seed registered for it."""
    for extra in _EXTRAS.get(framework, ()):
        extra(server, services)
