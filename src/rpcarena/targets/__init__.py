"""External targets: servers rpcarena did not start, benchmarked with the arena's method.

A target (`rpcarena.targets.target`) plays the contender's part in an arena
plan; its Python client (gRPC from a descriptor set, templated HTTP, RPyC by
method name) is chosen here from the description the driver spec carries.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from rpcarena.errors import UsageError

# kind -> "module:Class"; a client takes (target, method, timeout_s, description).
CLIENTS = {
    "grpc": "rpcarena.targets.grpc_client:GrpcTargetClient",
    "http": "rpcarena.targets.http_client:HttpTargetClient",
    "rpyc": "rpcarena.targets.rpyc_client:RpycTargetClient",
}


def client_factory(description: dict[str, Any]) -> Callable[..., Any]:
    """(target, method, timeout_s) -> a client of the kind the description names."""
    path = CLIENTS.get(description.get("kind", ""))
    if path is None:
        raise UsageError(f"unknown target kind {description.get('kind')!r}: use one of {', '.join(CLIENTS)}")
    module, _, name = path.partition(":")
    return functools.partial(getattr(importlib.import_module(module), name), description=description)
