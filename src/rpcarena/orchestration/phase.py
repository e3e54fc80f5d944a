"""A cell's measured phase: driver processes started together, their results merged.

Python clients are spread over several `python -m rpcarena.worker.drive` processes
(one GIL is not what is measured); a native driver runs all its clients in one
process. Every driver warms up, says so, and waits; when all are warm the
server's counters are read and all are released at once (JMH's synchronised
start), so CPU time, bytes and wall time cover exactly the measured phase.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rpcarena.contract import INTERVAL_EVENT, WARM, DriveResult, DriveSpec
from rpcarena.errors import ServerError, WorkerError
from rpcarena.process.children import Child
from rpcarena.worker.merge import merge

MAX_PYTHON_PROCS = 16
CONNECT_GRACE_S = 60.0
PYTHON_DRIVER = (sys.executable, "-m", "rpcarena.worker.drive")


@dataclass(frozen=True)
class DriverSpec:
    """Which program drives, and the contract spec it is given."""

    argv: list[str]
    spec: DriveSpec


@dataclass(frozen=True)
class Outcome:
    """What the measured phase gave: the drivers' results merged into one."""

    result: DriveResult
    processes: int
    # True when a driver could not sync: then the server's counters include its warm-up
    counters_include_warmup: bool
    # how long the warm-up took: the longest a driver's "warm" line said (a JIT's may outlast
    # warmup_s), else the spec's warmup_s
    warmup_s: float = 0.0


def split(spec: DriveSpec, procs: int) -> list[DriveSpec]:
    """Share clients, calls, rate, connections and the sample budget over `procs` driver processes
    (no more processes than connections: each opens at least one, and together they open M)."""
    procs = max(1, min(procs, spec.clients, spec.connections or spec.clients))
    shares = _shares(spec.clients, procs)
    links = _shares(spec.connections, procs) if spec.connections else [None] * procs
    calls = None if spec.calls is None else [spec.calls * n // spec.clients for n in shares]
    if calls is not None:  # give the rounding remainder to the first process
        calls[0] += spec.calls - sum(calls)  # type: ignore[operator]
    return [spec.but(clients=n, calls=None if calls is None else calls[p],
                     rate_per_s=spec.rate_per_s * n / spec.clients if spec.rate_per_s else spec.rate_per_s,
                     stages=_shared_stages(spec.stages, n / spec.clients),
                     sample_limit=max(1, spec.sample_limit // procs), connections=links[p],
                     schedule_offset_ns=_stagger(spec, p, procs))
            for p, n in enumerate(shares)]


def _stagger(spec: DriveSpec, p: int, procs: int) -> int | None:
    """Where the p-th driver's open-loop schedule starts: p calls of the cell's rate after the phase's
    start (its first stage's rate), so that P drivers each at rate/P send one call every 1/rate
    between them, as one driver would, not P calls at once every P/rate (None for the first driver,
    a closed loop, or one driver)."""
    if not spec.rate_per_s or procs < 2 or p == 0:
        return None
    return round(p * 1e9 / spec.rate_per_s)


def _shares(total: int, procs: int) -> list[int]:
    """`total` spread over `procs` as evenly as whole numbers go, the first ones one more."""
    return [total // procs + (1 if p < total % procs else 0) for p in range(procs)]


def _shared_stages(stages: list[Any] | None, share: float) -> list[Any] | None:
    """A driver process's part of each stage's rate: the share of the clients it runs."""
    return None if stages is None else [dict(s, rate_per_s=s["rate_per_s"] * share) for s in stages]


def python_drivers(spec: DriveSpec, procs: int = MAX_PYTHON_PROCS) -> list[DriverSpec]:
    return [DriverSpec(list(PYTHON_DRIVER), part.but(sync=True)) for part in split(spec, procs)]


class Drivers(Protocol):
    """Where a phase's driver processes come from, and where they go after it."""

    def prepared(self, drivers: list[DriverSpec], warmup_s: float, warmup_max_s: float | None) -> list[DriverSpec]:
        """The cell's drivers as these processes run them (`warmup_s`, `warmup_max_s`: the run's own, as
        asked)."""

    def open(self, driver: DriverSpec, cpus: tuple[int, ...] | None, log: Path) -> Child:
        """A driver process that reads its spec on stdin."""

    def close(self, child: Child, measured: bool) -> None:
        """Done with it: `measured`, its result came."""


class FreshDrivers:
    """A fresh process per driver, stopped after its phase (every driver but a kept one, `kept`)."""

    def prepared(self, drivers: list[DriverSpec], warmup_s: float, warmup_max_s: float | None) -> list[DriverSpec]:
        return drivers

    def open(self, driver: DriverSpec, cpus: tuple[int, ...] | None, log: Path) -> Child:
        return Child(driver.argv, cpus, log, stdin=True)

    def close(self, child: Child, measured: bool) -> None:
        child.stop()


FRESH = FreshDrivers()


class EarlyDrivers(FreshDrivers):
    """Fresh driver processes started before their server is up, so that their start-up (a Python driver's
    imports, a JVM's) overlaps the server's on the other CPU; each reads its spec, with the server's address,
    once the phase sends it. Handed to the phase in order; a context manager, so that those of a cell whose
    server never came up are stopped with it."""

    def __init__(self, argvs: list[list[str]], cpus: tuple[int, ...] | None, logs: Path) -> None:
        self.children = [Child(argv, cpus, logs / f"driver-{i}.log", stdin=True) for i, argv in enumerate(argvs)]
        self.handed = 0

    def open(self, driver: DriverSpec, cpus: tuple[int, ...] | None, log: Path) -> Child:
        child = self.children[self.handed]
        assert child.argv == driver.argv, "a phase's drivers are the ones started early, in order"
        self.handed += 1
        return child

    def __enter__(self) -> EarlyDrivers:
        return self

    def __exit__(self, *exc: object) -> None:
        for child in self.children:
            child.stop()


class Phase:
    """One measured phase: start drivers, sync at warm, collect, merge."""

    def __init__(self, drivers: list[DriverSpec], cpus: tuple[int, ...] | None, logs: Path,
                 alive: Callable[[], bool], died: Callable[[], str],
                 on_interval: Callable[[dict[str, Any]], None] | None = None, processes: Drivers = FRESH) -> None:
        self.drivers = drivers
        self.on_interval = on_interval  # told each driver's interval line as it comes
        self.cpus = cpus
        self.logs = logs
        self.alive = alive
        self.died = died
        self.processes = processes
        self.children: list[Child] = []

    def run(self, on_warm: Callable[[], None], timeout_s: float) -> Outcome:
        """Measure; `on_warm` runs when every synced driver is warm (at once when none syncs:
        then the server's counters include the warm-up, and the outcome says so)."""
        measured = False
        try:
            self._start()
            warm_s = self._await_warm(self._warmup_s() + CONNECT_GRACE_S)
            on_warm()
            for child, driver in zip(self.children, self.drivers):
                if driver.spec.sync:
                    child.send("go")
            results = self._results(timeout_s + self._warmup_s())
            measured = True
            return Outcome(merge(results), len(results), not all(d.spec.sync for d in self.drivers), warm_s)
        finally:
            for child in self.children:
                self.processes.close(child, measured)

    def _warmup_s(self) -> float:
        return max(d.spec.longest_warmup_s for d in self.drivers)

    def _start(self) -> None:
        for i, driver in enumerate(self.drivers):
            child = self.processes.open(driver, self.cpus, self.logs / f"driver-{i}.log")
            self.children.append(child)
            child.send(driver.spec.to_line())
            if not driver.spec.sync:
                child.close_stdin()  # the contract: a spec, then end of input

    def _await(self, child: Child, deadline: float, want: Callable[[dict[str, Any]], bool],
               patience_s: float | None = None) -> dict[str, Any] | None:
        """The child's next message that `want`s, passing its interval lines to `on_interval`; with
        `patience_s`, None when none came within it (the caller then reads the other children)."""
        give_up = deadline if patience_s is None else min(deadline, time.monotonic() + patience_s)
        while True:
            if not self.alive():
                raise ServerError(self.died())
            message = child.read_json(min(0.5, max(0.0, give_up - time.monotonic())))
            if message is None and not child.alive():
                # It may have written its last line and exited since the read above gave up.
                message = child.read_json(0.1)
                if message is None:
                    raise WorkerError(f"client driver failed: {child.last_error_line()} (log: {child.log})")
            if message is not None and message.get("event") == INTERVAL_EVENT:
                if self.on_interval is not None:
                    self.on_interval(message)
            elif message is not None and want(message):
                return message
            if time.monotonic() > deadline:
                raise WorkerError(f"client driver timed out (log: {child.log}); raise --cell-timeout")
            if time.monotonic() >= give_up:
                return None

    def _await_warm(self, timeout_s: float) -> float:
        """How long the warm-up took: the longest any driver's "warm" line says, else the spec's."""
        deadline, took = time.monotonic() + timeout_s, max(d.spec.warmup_s for d in self.drivers)
        for child, driver in zip(self.children, self.drivers):
            if driver.spec.sync:
                warm = self._await(child, deadline, lambda m: m.get("event") == WARM["event"])
                took = max(took, warmed_s(warm))
        return took

    def _results(self, timeout_s: float) -> list[DriveResult]:
        """Every driver's result, reading all of them in turn: a driver's interval lines must not
        fill its pipe (and stall its clients) while another's result is awaited."""
        deadline = time.monotonic() + timeout_s
        got: dict[int, DriveResult] = {}
        while len(got) < len(self.children):
            for i, child in enumerate(self.children):
                if i not in got and (message := self._await(child, deadline, _is_result, POLL_S)) is not None:
                    got[i] = DriveResult.from_json(message)
        return [got[i] for i in range(len(self.children))]


POLL_S = 0.1  # how long one driver is read before the next, while results are awaited


def warmed_s(warm: dict[str, Any] | None) -> float:
    """The warm-up a driver's "warm" line reports (a JIT's, which may outlast warmup_s); 0 when it says none."""
    value = (warm or {}).get("warmup_s")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _is_result(message: dict[str, Any]) -> bool:
    return "calls" in message
