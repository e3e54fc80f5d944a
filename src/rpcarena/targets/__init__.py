"""External targets: servers rpcarena did not start, benchmarked with the arena's method.

A target (`rpcarena.targets.target`) plays the contender's part in an arena
plan; its Python client (gRPC from a descriptor set, templated HTTP, RPyC by
method name) is chosen here from the description the driver spec carries.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rpcarena.contenders.base import Client
from rpcarena.errors import UsageError
from rpcarena.targets.grpc_client import GrpcTargetClient
from rpcarena.targets.http_client import HttpTargetClient
from rpcarena.targets.rpyc_client import RpycTargetClient

# kind -> its client's class, which takes (target, method, timeout_s, description).
CLIENTS: dict[str, type[GrpcTargetClient | HttpTargetClient | RpycTargetClient]] = {
    "grpc": GrpcTargetClient, "http": HttpTargetClient, "rpyc": RpycTargetClient,
}


def client_factory(description: dict[str, Any]) -> Callable[[str, str, float], Client]:
    """(target, method, timeout_s) -> a client of the kind the description names."""
    client = CLIENTS.get(description.get("kind", ""))
    if client is None:
        raise UsageError(f"unknown target kind {description.get('kind')!r}: use one of {', '.join(CLIENTS)}")
    return functools.partial(client, description=description)
