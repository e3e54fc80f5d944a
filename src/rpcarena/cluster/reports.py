"""What a cluster cell's tasks report back to the orchestrator, typed at the boundary.

A node's `serve` task returns a `ServeReport` (the server's costs over the measured phase),
each `drive` task a `NodeReport` (the node's merged result and when it released its drivers,
by its own clock). Both cross Dask's pickle as frozen values; the orchestrator checks the type
of what came back once (`received`), so a missing figure is an error naming the node, never a
KeyError while the cell is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from rpcarena.contract import DriveResult
from rpcarena.errors import WorkerError
from rpcarena.network import wire
from rpcarena.process.server_process import Usage


@dataclass(frozen=True)
class ServeReport:
    """The server's node over the measured phase (from "mark" to "stop")."""

    node: str
    usage: Usage
    wire: wire.Count | None  # None: not counted there (`wire_unavailable` says why, when it is known)
    wire_unavailable: str | None
    peak_rss_bytes: int | None
    engine_cpu_s: float  # the Dask worker's own CPU on the node, beside the server's
    engine_window_s: float
    cpus: list[int] | None
    tcp_nodelay: bool | str | None = None  # on the server's sockets, read on its node at "mark"


@dataclass(frozen=True)
class NodeReport:
    """A client node's drivers: their merged result, and when they were released by its clock."""

    node: str
    result: DriveResult
    processes: int
    counters_include_warmup: bool
    release_mono_ns: int
    mono_to_wall_ns: int  # the node's wall clock minus its monotonic one, read at the end
    engine_cpu_s: float
    engine_window_s: float
    rtt_ms: float | None
    cpus: list[int] | None
    tcp_nodelay: bool | str | None = None  # on the drivers' sockets, read on the node once warm
    warmup_s: float | None = None  # how long its drivers' warm-up took (a JIT's may outlast the spec's)


Report = TypeVar("Report", ServeReport, NodeReport)


def received(value: object, want: type[Report], node: str) -> Report:
    """A task's return value as the report it must be (a task of another rpcarena is not)."""
    if not isinstance(value, want):
        raise WorkerError(f"node {node}: its task returned {type(value).__name__}, not a {want.__name__} "
                          "(is the node's rpcarena the same version as this one?)")
    return value
