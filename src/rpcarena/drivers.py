"""Driving a server: client processes started together, their results merged.

Python clients are spread over several `python -m rpcarena.drive` processes
(one GIL is not what is measured); a native driver runs all its clients in one
process. Every driver warms up, says so, and waits; when all are warm the
server's counters are read and all are released at once (JMH's synchronised
start), so CPU time, bytes and wall time cover exactly the measured phase.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rpcarena import hist
from rpcarena.errors import ServerError, WorkerError
from rpcarena.procs import Child

MAX_PYTHON_PROCS = 16
CONNECT_GRACE_S = 60.0


@dataclass(frozen=True)
class DriverSpec:
    """Which program drives, and the contract spec it is given."""

    argv: list[str]
    spec: dict


def split(spec: dict, procs: int) -> list[dict]:
    """Share clients, calls and the sample budget over `procs` driver processes."""
    clients = spec["clients"]
    procs = max(1, min(procs, clients))
    parts = []
    for p in range(procs):
        share = dict(spec)
        share["clients"] = clients // procs + (1 if p < clients % procs else 0)
        if spec.get("calls") is not None:
            share["calls"] = spec["calls"] * share["clients"] // clients
        if spec.get("rate_per_s"):
            share["rate_per_s"] = spec["rate_per_s"] * share["clients"] / clients
        share["sample_limit"] = max(1, spec.get("sample_limit", 10_000) // procs)
        parts.append(share)
    if spec.get("calls") is not None:  # give the rounding remainder to the first process
        parts[0]["calls"] += spec["calls"] - sum(p["calls"] for p in parts)
    return parts


def python_drivers(spec: dict, procs: int = MAX_PYTHON_PROCS) -> list[DriverSpec]:
    argv = [sys.executable, "-m", "rpcarena.drive"]
    return [DriverSpec(argv, dict(part, sync=True)) for part in split(spec, procs)]


class Drive:
    """One measured phase: start drivers, sync at warm, collect, merge."""

    def __init__(self, drivers: list[DriverSpec], cpus: tuple[int, ...] | None, logs: Path,
                 alive: Callable[[], bool], died: Callable[[], str]) -> None:
        self.drivers = drivers
        self.cpus = cpus
        self.logs = logs
        self.alive = alive
        self.died = died
        self.children: list[Child] = []

    def run(self, on_warm: Callable[[], None], timeout_s: float) -> dict:
        """Measure; `on_warm` runs when every synced driver is warm (at once when none syncs:
        then the server's counters include the warm-up, and the result says so)."""
        try:
            self._start()
            self._await_warm(max(d.spec.get("warmup_s", 0) for d in self.drivers) + CONNECT_GRACE_S)
            on_warm()
            for child, driver in zip(self.children, self.drivers):
                if driver.spec.get("sync"):
                    child.send("go")
            result = merge(self._results(timeout_s + self._warmup_s()))
            result["server_counters_include_warmup"] = not all(d.spec.get("sync") for d in self.drivers)
            return result
        finally:
            for child in self.children:
                child.stop()

    def _warmup_s(self) -> float:
        return max(d.spec.get("warmup_s", 0) for d in self.drivers)

    def _start(self) -> None:
        for i, driver in enumerate(self.drivers):
            child = Child(driver.argv, self.cpus, self.logs / f"driver-{i}.log", stdin=True)
            self.children.append(child)
            child.send(json.dumps(driver.spec))
            if not driver.spec.get("sync"):
                child.close_stdin()  # the contract: a spec, then end of input

    def _await(self, child: Child, deadline: float, want: Callable[[dict], bool]) -> dict:
        while True:
            if not self.alive():
                raise ServerError(self.died())
            message = child.read_json(min(0.5, max(0.0, deadline - time.monotonic())))
            if message is None and not child.alive():
                # It may have written its last line and exited since the read above gave up.
                message = child.read_json(0.1)
                if message is None:
                    raise WorkerError(f"client driver failed: {child.last_error_line()} (log: {child.log})")
            if message is not None and want(message):
                return message
            if time.monotonic() > deadline:
                raise WorkerError(f"client driver timed out (log: {child.log}); raise --cell-timeout")

    def _await_warm(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        for child, driver in zip(self.children, self.drivers):
            if driver.spec.get("sync"):
                self._await(child, deadline, lambda m: m.get("event") == "warm")

    def _results(self, timeout_s: float) -> list[dict]:
        deadline = time.monotonic() + timeout_s
        return [self._await(child, deadline, lambda m: "calls" in m) for child in self.children]


def merge(results: list[dict]) -> dict:
    """One result from several drivers' results (histograms added, counts summed)."""
    histogram, uncorrected = hist.new(), None
    errors: Counter = Counter()
    examples: dict = {}
    samples: list = []
    for p, result in enumerate(results):
        histogram.add(hist.decode(result.get("histogram")))
        if result.get("histogram_uncorrected"):
            uncorrected = uncorrected or hist.new()
            uncorrected.add(hist.decode(result["histogram_uncorrected"]))
        errors.update(result.get("errors", {}))
        for kind, text in result.get("error_examples", {}).items():
            examples.setdefault(kind, text)
        samples.extend([index * len(results) + p, ns] for index, ns in result.get("samples", []))
    starts = [r["start_mono_ns"] for r in results if "start_mono_ns" in r]
    ends = [r["end_mono_ns"] for r in results if "end_mono_ns" in r]
    wall_s = (max(ends) - min(starts)) / 1e9 if len(starts) == len(results) else max(r["wall_s"] for r in results)
    return {
        "calls": sum(r["calls"] for r in results), "errors": dict(errors), "error_examples": examples,
        "wall_s": wall_s, "histogram": hist.encode(histogram),
        "histogram_uncorrected": hist.encode(uncorrected) if uncorrected is not None else None,
        "samples": sorted(samples), "late_calls": sum(r.get("late_calls", 0) for r in results),
        "retries": sum(r.get("retries", 0) for r in results),
        "cpu_user_s": sum(r.get("cpu_user_s", 0.0) for r in results),
        "cpu_sys_s": sum(r.get("cpu_sys_s", 0.0) for r in results),
        "processes": len(results), "tool": results[0].get("tool", {}),
    }
