"""One cell's measurement against a server that is up, whoever started it.

Drivers warm up; when all are warm the server's CPU time and the kernel's byte
counters are read; the measured phase runs; both are read again. The measurement
returned holds the merged result, the differences, where everything ran, how loaded
the machine was before and after (drift), and what other processes took during the
phase (contention: the server's run-queue wait, the CPU time of processes outside
the run); the arena makes the stored cell of it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from rpcarena import environment
from rpcarena.contract import DriveResult
from rpcarena.errors import HelperLost, ServerError, WorkerError
from rpcarena.network import nodelay, sockets
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.live import LiveSeries
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.phase import FRESH, Drivers, DriverSpec, Outcome, Phase
from rpcarena.orchestration.sampler import Reading, ServerSampler
from rpcarena.process import contention
from rpcarena.process.placement import where
from rpcarena.process.server_process import Usage, rss_bytes
from rpcarena.record import intervals


class ServerSide(Protocol):
    """What a measurement reads of a server: liveness, counters, where it listens."""

    @property
    def pid(self) -> int | None: ...

    @property
    def port(self) -> int | None: ...  # counted on this host's wire; None for a server elsewhere

    def alive(self) -> bool: ...

    def died_message(self) -> str: ...

    def state(self) -> str | None: ...  # "stopped" when suspended (SIGSTOP), else None

    def usage(self) -> Usage: ...

    def peak_rss_bytes(self) -> int | None: ...


class Helper(Protocol):
    """A process a cell's calls pass through besides the server (HAProxy)."""

    def lost(self) -> str | None: ...


def measure(server: ServerSide, drivers: list[DriverSpec], context: RunContext, logs: Any,
            helpers: Sequence[Helper] = (), processes: Drivers = FRESH) -> Measurement:
    """Run the measured phase of `drivers` (their processes from `processes`: fresh, or kept warm) against
    `server` and return what it measured. A helper of the run or the cell that dies fails it at once,
    naming it, as a dying server does."""
    def lost() -> str | None:
        return context.lost() or next((why for why in (h.lost() for h in helpers) if why), None)

    if lost():
        raise HelperLost(str(lost()))
    load_before = environment.load_now()
    rtt_ms = context.link.rtt_ms() if context.link is not None else None  # the link as it is now
    prefixed = [DriverSpec(context.client_prefix + d.argv, d.spec) for d in drivers]
    live = (LiveSeries(drivers[0].spec.interval_s, context.on_interval, sum(d.spec.clients for d in drivers))
            if context.on_interval else None)
    phase = Phase(prefixed, context.placement.clients, logs, lambda: server.alive() and not lost(),
                  lambda: lost() or server.died_message(), live.add if live else None, processes)
    at_warm: dict[str, Any] = {}
    with context.wire_counter(server.port) as counter:
        sampler = ServerSampler(drivers[0].spec.interval_s, _reader(server, counter))

        def on_warm() -> None:
            at_warm["usage"] = server.usage()
            at_warm["wire"] = counter.read() if counter else None
            at_warm["link_cpu_s"] = context.link.delay_line_cpu_s() if context.link else None
            at_warm["tcp_nodelay"] = _nodelay(server, phase, drivers[0].spec.target)
            at_warm["contention"] = contention.read(server.pid)
            at_warm["connections"] = sockets.accepted(server.pid, server.port) if server.pid and server.port else None
            sampler.start()
        try:
            outcome = _drive(phase, on_warm, server, context.config.cell_timeout_s)
        except ServerError:
            why = lost()  # the phase stopped for a helper: say which, and the run stops
            if why:
                raise HelperLost(why) from None
            raise
        finally:
            sampler.stop()
        over_time = sampler.series(_intervals(outcome.result, drivers[0].spec.interval_s))
        ended = contention.read(server.pid)
        used = server.usage() - at_warm["usage"]
        counted = counter.read() - at_warm["wire"] if counter else None
        link_cpu_s = _link_cpu_s(context, at_warm["link_cpu_s"])
    measured = Measurement(
        outcome.result, outcome.processes,
        ServerFigures(used, counted, server.peak_rss_bytes(), outcome.counters_include_warmup, tuple(over_time),
                      connections=at_warm["connections"]),
        warmup_s=outcome.warmup_s, link_rtt_ms=rtt_ms, link_cpu_s=link_cpu_s,
        tcp_nodelay=at_warm["tcp_nodelay"],
        placement=dict(context.placement.as_dict(), server_ran_on=where(server.pid) if server.pid else None),
        drift={"before": load_before, "after": environment.load_now()})
    if server.pid is None:  # a server elsewhere, or of unknown pid: its CPU would read as other load
        return measured
    return replace(measured, contention=at_warm["contention"].until(ended))


def _intervals(result: DriveResult, interval_s: float) -> int:
    """How many intervals the drivers' phase had, as its per-interval rows count them."""
    return len(intervals.filled(result.intervals or [], interval_s, result.wall_s))


def _reader(server: ServerSide, counter: Any) -> Callable[[], Reading]:
    """What the sampler reads each interval: the server's resident bytes (None for a server elsewhere)
    and the wire counters (None where they do not count, or a reading failed: a gap, not a failed cell)."""
    def read() -> Reading:
        try:
            count = counter.read() if counter else None
        except (OSError, subprocess.SubprocessError):
            count = None
        return (rss_bytes(server.pid) if server.pid else None), count
    return read


def _link_cpu_s(context: RunContext, at_warm: float | None) -> float | None:
    """The delay line's CPU time since the drivers were warm (None without a link or its reading)."""
    if context.link is None or at_warm is None:
        return None
    now = context.link.delay_line_cpu_s()
    return None if now is None else now - at_warm


def _nodelay(server: ServerSide, phase: Phase, target: str) -> dict[str, bool | str | None]:
    """TCP_NODELAY at each end, read from the connected sockets once all are warm."""
    called = int(target.rpartition(":")[2])  # the server's port, or a proxy's in front of it
    return {"client": nodelay.state([c.pid for c in phase.children], called, local=False),
            "server": nodelay.state([server.pid], server.port, local=True) if server.pid and server.port else None}


DYING_GRACE_S = 2.0  # how long a server whose calls failed may take to finish dying


def _drive(phase: Phase, on_warm: Any, server: ServerSide, timeout_s: float) -> Outcome:
    """The measured phase, then the server's state decides the cell: a server that died or was
    replaced during it fails the cell with its exit status, whatever the drivers saw (a driver
    may finish between two liveness checks, its calls all refused)."""
    try:
        outcome = phase.run(on_warm, timeout_s)
    except WorkerError as error:
        if _gone(server, DYING_GRACE_S):
            raise ServerError(server.died_message()) from None
        state = server.state()
        raise WorkerError(f"{error}; the server was {state} (SIGSTOP?)" if state else str(error)) from None
    if _gone(server, DYING_GRACE_S if outcome.result.error_counts else 0.0):  # (a native driver lists kinds at 0)
        raise ServerError(server.died_message())
    return outcome


def _gone(server: ServerSide, grace_s: float) -> bool:
    """Whether the server died or was replaced, giving one that may be dying up to `grace_s`."""
    deadline = time.monotonic() + grace_s
    while server.alive():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True
