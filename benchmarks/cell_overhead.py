"""Where a cell's time goes: per mechanism and client language, from the cell's start to its first measured
call and from its last call to the next cell's start, beside the measured phase.

It runs a real arena (fresh or kept servers and drivers, as `rpcarena run` and `suite` run them) over
one contender per mechanism and client language and times each cell's steps from the orchestrator's
side, wrapping the methods that take them (nothing in the library is changed):

    before     the cell's start to its server's spawn (the runner's checks)
    srv start  the server's runtime starting: a bare process of the same runtime (`python -c pass`,
               the worker's `list`), timed alone beforehand
    srv ready  the rest of the server's spawn to its ready line: imports, class loading, the bind
    setup      the ready line to the drivers' spawn (a proxy in front, the drive spec)
    drv start  the drivers' runtime starting (the same bare process), and spawning them
    drv init   the rest until the drivers begin to warm up: imports or JIT start-up, the connections
    warm-up    the drivers' warm-up as their "warm" lines report it (a JVM's until its JIT is quiet)
    counters   all warm to "go": the server's CPU, the wire's counters, TCP_NODELAY read back
    measured   "go" to the last driver's result
    teardown   the result to the cell's end: drivers and server stopped, the stored cell made
    between    the cell's end to the next cell's start: the document saved, the progress line

A kept server and driver (a JVM pair warmed once for a trial's cells, orchestration/kept.py) show their
start-up in a trial's first cell only: the later cells are a row of their own ("java kept"), with their
shorter warm-up. Each column is the median
over the cells of the row; `total` is the median cell from its start to the next's, `share` the
measured phase's part of it.

    .venv/bin/python benchmarks/cell_overhead.py [--contender grpc-py,grpc-java] [--workload usp.int32,usp.str512]
        [--repeat 3] [--calls 200] [--warmup 0.2s]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rpcarena import contenders
from rpcarena.clients import is_python
from rpcarena.config import RunConfig, parse_duration
from rpcarena.contenders import native
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.phase import Phase
from rpcarena.process.server_process import ServerProcess
from rpcarena.results import Results

# One contender per mechanism and server language, each driven by its own client (one row each).
DEFAULT = ("tcp-raw", "grpc-py", "rest-fastapi", "rpyc-tuple-nodelay", "tagless", "thrift-binary", "grpc-go",
           "rest-go", "tagless-go", "grpc-tonic", "rest-warp", "grpc-java", "rest-jackson", "typed-json-java")
COLUMNS = ("before", "srv start", "srv ready", "setup", "drv start", "drv init", "warm-up", "counters", "measured",
           "teardown", "between")


class Timeline:
    """The instants each cell's steps began and ended, by cell index, as the wrapped methods saw them."""

    def __init__(self) -> None:
        self.cell = -1
        self.marks: dict[int, dict[str, float]] = defaultdict(dict)
        self.warmup_s: dict[int, float] = {}

    def mark(self, name: str) -> None:
        self.marks[self.cell].setdefault(name, time.monotonic())

    def wrap(self, owner: Any, method: str, before: str | None, after: str | None,
             keep: Callable[[Any], None] | None = None) -> Callable[..., Any]:
        """`owner.method`, marking `before` as it is called and `after` as it returns (and giving its value
        to `keep`)."""
        inner = getattr(owner, method)

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if before:
                self.mark(before)
            value = inner(*args, **kwargs)
            if after:
                self.mark(after)
            if keep:
                keep(value)
            return value
        return timed


@contextlib.contextmanager
def timed(line: Timeline) -> Iterator[None]:
    """The arena's, the server's and the phase's steps wrapped to mark `line`, for the duration."""
    def at_cell(inner: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(inner)
        def measure(self: Arena, i: int, *args: Any) -> Any:
            line.cell = i
            line.mark("start")
            cell = inner(self, i, *args)
            line.mark("end")
            return cell
        return measure

    def warmed(value: float) -> None:
        line.warmup_s[line.cell] = value

    patches = [(Arena, "measure", at_cell(Arena.measure)),
               (ServerProcess, "start", line.wrap(ServerProcess, "start", "server spawn", "server ready")),
               (Phase, "_start", line.wrap(Phase, "_start", "drivers spawn", None)),
               (Phase, "_await_warm", line.wrap(Phase, "_await_warm", None, "warm", warmed)),
               (Phase, "_results", line.wrap(Phase, "_results", "go", "results"))]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def bare_start_s(argv: list[str], rounds: int = 3) -> float:
    """The median time to start and end a bare process of a runtime (its start-up, nothing of ours)."""
    took = []
    for _ in range(rounds):
        start = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        took.append(time.monotonic() - start)
    return statistics.median(took)


def runtime_argv(contender_id: str, client: str | None = None) -> list[str]:
    """A bare process of the runtime that serves `contender_id` (or runs `client` for it)."""
    contender = contenders.get(contender_id)
    if client is not None and not is_python(client):
        found = native.client(client, contender.protocol)
        return found.worker.argv("list") if found else [sys.executable, "-c", "pass"]
    if isinstance(contender, native.NativeContender) and client is None:
        return contender.worker.argv("list")
    return [sys.executable, "-c", "pass"]


def steps(marks: dict[str, float], next_start: float | None, warm_s: float, server_s: float,
          driver_s: float) -> dict[str, float] | None:
    """One cell's columns in seconds (None for a cell that was not measured)."""
    need = ("start", "drivers spawn", "warm", "go", "results", "end")
    if any(name not in marks for name in need):
        return None
    m = {"server spawn": marks["start"], "server ready": marks["start"], **marks}  # a kept server: no spawn
    server = m["server ready"] - m["server spawn"]
    drivers = m["warm"] - m["drivers spawn"] - warm_s
    return {"before": m["server spawn"] - m["start"], "srv start": min(server_s, server),
            "srv ready": max(0.0, server - server_s), "setup": m["drivers spawn"] - m["server ready"],
            "drv start": min(driver_s, drivers), "drv init": max(0.0, drivers - driver_s), "warm-up": warm_s,
            "counters": m["go"] - m["warm"], "measured": m["results"] - m["go"], "teardown": m["end"] - m["results"],
            "between": (next_start - m["end"]) if next_start is not None else 0.0,
            "total": (next_start if next_start is not None else m["end"]) - m["start"]}


def table(results: Results, line: Timeline, starts: dict[tuple[str, str], tuple[float, float]]) -> list[str]:
    """One row per (contender, client language): each column's median over its cells, in seconds."""
    rows: dict[tuple[str, str], list[dict[str, float]]] = defaultdict(list)
    for i, cell in enumerate(results.cells):
        nxt = line.marks.get(i + 1, {}).get("start")
        server_s, driver_s = starts[(cell.contender, cell.client)]
        marks = line.marks.get(i, {})
        got = steps(marks, nxt, line.warmup_s.get(i, 0.0), server_s, driver_s)
        if got is not None and cell.status == "ok":
            language = cell.client_language + (" kept" if "server spawn" not in marks else "")
            rows[(cell.contender, language)].append(got)
    head = f"{'mechanism':20s} {'client':11s} {'cells':>5s} " + " ".join(f"{c:>9s}" for c in COLUMNS)
    out = [head + f" {'total':>8s} {'share':>6s}"]
    for (contender, language), cells in rows.items():
        med = {c: statistics.median(cell[c] for cell in cells) for c in (*COLUMNS, "total")}
        out.append(f"{contender:20s} {language:11s} {len(cells):5d} " + " ".join(f"{med[c]:9.2f}" for c in COLUMNS)
                   + f" {med['total']:8.2f} {med['measured'] / med['total']:6.0%}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contender", default=",".join(DEFAULT), help="comma-separated contender ids")
    parser.add_argument("--workload", default="usp.int32,usp.str512",
                        help="comma-separated: a trial's cells of a kept pair after the first reuse it")
    parser.add_argument("--repeat", type=int, default=3, help="trials of each cell")
    parser.add_argument("--calls", type=int, default=200, help="calls of each measured phase (a --quick suite's)")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--warmup", default="0.2s", help="the warm-up asked for (a --quick suite's 0.2s)")
    args = parser.parse_args()
    wanted = [c for c in args.contender.split(",") if c in contenders.all_contenders()
              and not contenders.get(c).unavailable()]
    out = Path(tempfile.mkdtemp(prefix="cell-overhead-")) / "cells.json"
    config = RunConfig(contenders=wanted, workloads=args.workload.split(","), clients=[args.clients], calls=args.calls,
                       warmup_s=parse_duration(args.warmup, "--warmup") or 0.0, repeat=args.repeat, out=out)
    plans = contender_cells.plans(config)
    starts = {(p.subject.id, p.client): (bare_start_s(runtime_argv(p.subject.id)),
                                         bare_start_s(runtime_argv(p.subject.id, p.client))) for p in plans}
    line = Timeline()
    began = time.monotonic()
    with timed(line):
        results = Arena(config, plans).run()
    took = time.monotonic() - began
    print(f"{len(plans)} cells of {args.workload} x{args.clients}, {args.calls} calls, warm-up asked {args.warmup}, "
          f"{took:.0f} s in all ({took / max(1, len(plans)):.1f} s a cell); seconds, median per row")
    print("\n".join(table(results, line, starts)))
    failed = [c for c in results.cells if c.status != "ok"]
    for cell in failed:
        print(f"not in the table: {cell.contender}<-{cell.client} trial {cell.trial}: {cell.status}: {cell.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
