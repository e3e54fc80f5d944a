"""--server-work calibration: does a handler asked for W µs of CPU spend W µs more per call?

First the handler's cost alone, in this process: its thread CPU per call over --calls calls.
Then, for each Python mechanism that serves a user's schema, the examples' order service is measured
with no server work and with --server-work W, the two alternating over --repeat trials; the
server's CPU per call (its own clock, to the nanosecond) of each pair is subtracted, and the
difference divided by W. Within 10% (0.90x to 1.10x) is the issue's bar. Server CPU is the
process's, so it holds on a loaded machine better than latency does; the load is printed beside it.

    .venv/bin/python benchmarks/server_work.py [--work 300us] [--calls 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from rpcarena.config import RunConfig, parse_duration
from rpcarena.errors import ArenaError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.userschema import work
from rpcarena.userschema.workload import UserWorkload, build

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "orders"
CONTENDERS = ["grpc-py", "rest-fastapi", "tagless", "typed-json"]
BAR = 0.10


def server_cpu_us(work_us: float, calls: int, out: Path) -> dict[str, float]:
    """contender -> server CPU µs per call, one trial, with `work_us` of asked work."""
    options = UserWorkload(proto=str(EXAMPLE / "orders.proto"), method="orders.Orders/Place",
                           data_file=str(EXAMPLE / "requests.jsonl"), server_work_us=work_us)
    workload = build(options)
    config = RunConfig(contenders=CONTENDERS, workloads=[workload.id], calls=calls, warmup_s=0.5, out=out,
                       user_schema=options.to_json())
    return {c.contender: c.server_cpu_us_per_call for c in Arena(config, plans(config)).run().cells
            if c.status == "ok" and c.server_cpu_us_per_call is not None}


def alone(work_us: float, calls: int) -> float:
    """The cost function's own thread CPU per call, µs (what a server adds to its handler)."""
    import time

    cost, _ = work.handler_cost(work_us, 0)
    start = time.thread_time_ns()
    for _ in range(calls):
        cost()
    return (time.thread_time_ns() - start) / calls / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="300us")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    work_us = (parse_duration(args.work, "--work") or 0) * 1e6
    spent = alone(work_us, args.calls)
    print(f"the handler's cost alone: {spent:.1f}us of thread CPU per call for {work_us:g}us asked "
          f"({spent / work_us:.3f}x), load {os.getloadavg()[0]:.1f}")
    ratios: dict[str, list[float]] = {c: [] for c in CONTENDERS}
    try:
        with tempfile.TemporaryDirectory(prefix="rpcarena-bench-work-") as tmp:
            for trial in range(args.repeat):
                base = server_cpu_us(0, args.calls, Path(tmp) / f"base{trial}.json")
                worked = server_cpu_us(work_us, args.calls, Path(tmp) / f"work{trial}.json")
                for contender in set(base) & set(worked):
                    ratios[contender].append((worked[contender] - base[contender]) / work_us)
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(f"--server-work {work_us:g}us, {args.calls} calls x {args.repeat} trials, load {os.getloadavg()[0]:.1f}")
    print(f"{'contender':<14} {'added CPU / asked':>18}   within {BAR:.0%}")
    for contender, found in ratios.items():
        if found:
            median = statistics.median(found)
            print(f"{contender:<14} {median:>17.3f}x   {'yes' if abs(median - 1) <= BAR else 'no'}"
                  f"   (trials: {', '.join(f'{r:.3f}' for r in found)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
