"""What a runner measured of one cell, returned whole: the arena alone makes the stored cell of it.

A runner (a contender's fresh server, an external target, a cluster's nodes) gives back one
frozen `Measurement`: the client side merged (`worker.merge`), the server side read over the
measured phase, and the per-node parts when the cell ran on several nodes. `cell.cell_of`
turns a plan and a measurement into the results document's `Cell`, in one place, so that no
runner writes a field of a stored cell (hyperfine's executor returns its timing; ghz's
reporter builds the report once).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rpcarena.contract import DriveResult
from rpcarena.network import wire
from rpcarena.process.server_process import Usage
from rpcarena.record.intervals import ServerIntervalEntry


@dataclass(frozen=True)
class ServerFigures:
    """The server over the measured phase: its CPU, its bytes on the wire, its peak memory."""

    usage: Usage
    wire: wire.Count | None = None  # None: not counted (a server elsewhere, no nft)
    peak_rss_bytes: int | None = None
    counters_include_warmup: bool = False  # a driver could not sync: its warm-up is in the counters
    # each interval of the measured phase (orchestration.sampler): start_s, rss_bytes, wire_in/out_bytes
    intervals: tuple[ServerIntervalEntry, ...] = ()
    connections: int | None = None  # its established connections once the clients were warm


@dataclass(frozen=True)
class Measurement:
    """One measured cell, as its runner saw it."""

    clients: DriveResult  # every driver's result merged into one
    processes: int  # the client processes that ran the drivers
    server: ServerFigures
    warmup_s: float | None = None
    link_rtt_ms: float | None = None  # the link's round trip (ping) just before the cell
    link_cpu_s: float | None = None  # the delay line's CPU time during the measured phase
    tcp_nodelay: Mapping[str, Any] = field(default_factory=dict)
    placement: Mapping[str, Any] = field(default_factory=dict)
    drift: Mapping[str, Any] = field(default_factory=dict)
    contention: Mapping[str, Any] = field(default_factory=dict)
    nodes: Mapping[str, Any] = field(default_factory=dict)  # --cluster: each node's part, the skews
    via: str | None = None  # "direct": the proxy of --via leaves this protocol alone
    note: str | None = None  # why, beside an ok cell (the reason of a "direct" one)
    failed: str | None = None  # a gate failed the measured cell: why (its figures are kept)
