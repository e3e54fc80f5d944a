"""A server and its driver kept warm from cell to cell of one trial, where a runtime's warm-up is most of
a cell: a native client whose worker's manifest says `"warm_once": true` (the JVM, whose JIT goes quiet
12-25 s into a fresh process on a shared CPU, for a phase of a second).

For each contender, client and trial, one server and one driver (`drive --many --jit-of SERVER_PID`):
the first cell of the trial starts them and warms up as a fresh pair does (the manifest's least, then
until both JITs are quiet); each later cell of the trial reuses them with its own warm-up (the run's,
again until both JITs are quiet: a new workload compiles anew), its own connections, its own histogram
and its own peak RSS. Each trial starts a fresh pair (`FRESH_EACH_TRIAL`), so a cell's trials stay
independent draws of a fresh JVM (one JVM's compiled code is one draw: between-JVM variance, Georges et
al., OOPSLA 2007).
Between its cells a pair waits stopped (SIGSTOP), so its compiler and collector take no CPU from
other cells; a cell that fails ends its pair, and the run's end ends them all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rpcarena.contenders import native
from rpcarena.contract import DriveSpec
from rpcarena.orchestration.phase import DriverSpec
from rpcarena.orchestration.plan import Plan
from rpcarena.process.children import Child
from rpcarena.process.server_process import ServerProcess

WARM_ONCE = "warm_once"  # the manifest's key
# A fresh pair for each trial: a cell's trials are then independent draws of a fresh JVM. False: one pair
# serves the whole run (one warm-up per contender and client), which is sound only where one JVM's trials
# spread as much as fresh JVMs' do (benchmarks/jvm_reuse.py: "in 1 JVM" against "JVM-to-JVM").
FRESH_EACH_TRIAL = True
# A later cell of a pair warms up until both JITs are quiet, at most this long (unless the run says
# --warmup-max; the manifest's max_warmup_s bounds it too). Not less: a new workload compiles anew. A cap of
# 0.3-1 s made 32-client infobip.items100 cells 1.1-1.9x slower than fresh pairs' (rest-jackson 1.44x and
# 1.59x in mean, significant), where waiting for the JITs (9-30 s) kept kept/fresh at 0.74-1.16x, inside
# the fresh-vs-fresh spread (benchmarks/jvm_reuse.py --clients 32 --later-warmup-max 0,1).
LATER_WARMUP_MAX_S = 30.0


def warms_once(client: native.NativeContender | None) -> bool:
    """Whether the client's worker keeps its pairs warm: it says so, and its driver syncs (`drive --many`
    waits for "go" between specs)."""
    manifest = client.worker.manifest if client is not None else {}
    return bool(manifest.get(WARM_ONCE) and manifest.get("drive_sync"))


def later(spec: DriveSpec, warmup_s: float, warmup_max_s: float | None) -> DriveSpec:
    """A later cell's spec: the run's warm-up, and a JIT's wait at most the run's or `LATER_WARMUP_MAX_S`."""
    most = spec.warmup_max_s
    if most is not None:
        most = max(warmup_s, warmup_max_s if warmup_max_s is not None else min(most, LATER_WARMUP_MAX_S))
    return spec.but(warmup_s=warmup_s, warmup_max_s=most)


@dataclass
class Pair:
    """One kept server and its driver, for one trial of one contender and client."""

    trial: int
    server: ServerProcess
    driver: Child | None = None
    cells: int = 0  # measured on it so far

    def prepared(self, drivers: list[DriverSpec], warmup_s: float, warmup_max_s: float | None) -> list[DriverSpec]:
        """The cell's driver (phase.Drivers): `drive --many`, its warm-up also waiting for the server's JIT;
        once the pair has measured a cell, warmed up for the run's `warmup_s` (the manifest's least is a
        cold JIT's) and at most the run's `warmup_max_s`, else `LATER_WARMUP_MAX_S`."""
        argv = ["--many", "--jit-of", str(self.server.pid)]
        return [DriverSpec(d.argv + argv, later(d.spec, warmup_s, warmup_max_s) if self.cells else d.spec)
                for d in drivers]

    def open(self, driver: DriverSpec, cpus: tuple[int, ...] | None, log: Path) -> Child:
        """Its driver process (phase.Drivers): the kept one, or a first one started now."""
        if self.driver is None:
            self.driver = Child(driver.argv, cpus, log, stdin=True)
        return self.driver

    def close(self, child: Child, measured: bool) -> None:
        """Kept when its result came; stopped when not (the pair then ends with the cell)."""
        if not measured:
            child.stop()

    def usable(self, trial: int) -> bool:
        """Whether the next cell of `trial` may use it: the same trial, both processes alive and its
        server's peak RSS started afresh."""
        alive = self.server.alive() and (self.driver is None or self.driver.alive())
        same = self.trial == trial or not FRESH_EACH_TRIAL
        return same and alive and self.server.reset_peak_rss()

    def pause(self) -> None:
        for child in self._children():
            child.pause()

    def resume(self) -> None:
        for child in self._children():
            child.resume()

    def stop(self) -> None:
        for child in self._children():
            child.stop()

    def _children(self) -> list[Child]:
        return [c for c in (self.server.child, self.driver) if c is not None]


@dataclass
class Kept:
    """The kept pairs of one run, by (contender, client)."""

    pairs: dict[tuple[str, str], Pair] = field(default_factory=dict)

    @contextlib.contextmanager
    def pair(self, plan: Plan, start: Callable[[], ServerProcess]) -> Iterator[Pair]:
        """The plan's pair for one cell: reused when it may be, else a fresh server `start`ed (and its
        driver at its first phase); paused after a cell that measured, ended after one that failed."""
        key = (plan.subject.id, plan.client)
        found = self.pairs.get(key)
        if found is not None:
            found.resume()
            if not found.usable(plan.trial):
                self._end(key)
                found = None
        pair = found or self.pairs.setdefault(key, Pair(plan.trial, start()))
        try:
            yield pair
        except BaseException:
            self._end(key)
            raise
        pair.cells += 1
        pair.pause()

    def _end(self, key: tuple[str, str]) -> None:
        pair = self.pairs.pop(key, None)
        if pair is not None:
            pair.stop()

    def close(self) -> None:
        """Every pair ended (the run's end, however it ends)."""
        for key in list(self.pairs):
            self._end(key)
