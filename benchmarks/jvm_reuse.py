"""Does keeping a JVM pair warm from cell to cell (orchestration/kept.py) move what a cell measures?

Paired rounds, per Java mechanism driven by the Java client: in each round, in an order shuffled per
round, three runs of the real arena:

    fresh 1   a fresh server and driver JVM measure workload B (the first cell of a pair: the
              manifest's warm-up, until both JITs are quiet)
    fresh 2   the same again: fresh 1 against fresh 2 is the A/A noise
    kept      a fresh pair measures workload A, then, kept, B, then B again (B and B' reuse it, each
              with its own short warm-up, as a suite's later cells of a trial do)

It prints per mechanism the median latency of B (the median of the rounds' p50s) fresh and kept, and
the ratios over rounds with their 95% intervals (`stats.trial_ratio`, Welch on the logs): kept/fresh
beside fresh 1/fresh 2. The reuse is sound when kept/fresh sits within the A/A noise. Then the spread
of one JVM against many: |log B'/B| within one kept JVM beside |log fresh1/fresh2| between fresh JVMs
(medians over rounds). A within-JVM spread well under the between-JVM one says a cell's trials must be
fresh JVMs (kept.py keeps a pair for one trial only) or their intervals would be too narrow.

    .venv/bin/python benchmarks/jvm_reuse.py [--rounds 5] [--contender grpc-java,rest-jackson,...]
        [--workloads infobip.items10,infobip.items100] [--calls 300] [--clients 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
import sys
import tempfile
from pathlib import Path

from rpcarena import contenders
from rpcarena.analysis import stats
from rpcarena.config import RunConfig
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.results import Cell

JAVA = ("grpc-java", "rest-jackson", "http-javaser", "typed-json-java")
FRESH, KEPT = "fresh", "kept"


def arena(contender: str, workloads: list[str], args: argparse.Namespace, folder: Path) -> list[Cell]:
    """One arena run of `workloads` in turn, one trial, on one pair (fresh at its first cell)."""
    config = RunConfig(contenders=[contender], workloads=workloads, clients=[args.clients], calls=args.calls,
                       warmup_s=args.warmup, repeat=1, client_drivers=["java"],
                       out=Path(tempfile.mkdtemp(dir=folder)) / "r.json")
    plans = contender_cells.plans(config)
    done = Arena(config, plans + [dataclasses.replace(plans[-1])] * (len(workloads) > 1)).run()
    failed = [f"{c.workload}: {c.reason}" for c in done.cells if c.status != "ok"]
    if failed:
        raise SystemExit(f"{contender}: a cell failed: {failed[0]}")
    return done.cells


def rounds(contender: str, args: argparse.Namespace, folder: Path) -> dict[str, list[float]]:
    """Per run kind, one p50 (us) of workload B per round; 'kept' B' as 'again'."""
    first, second = args.workloads
    found: dict[str, list[float]] = {"fresh 1": [], "fresh 2": [], KEPT: [], "again": []}
    for r in range(args.rounds):
        kinds = ["fresh 1", "fresh 2", KEPT]
        random.Random(r).shuffle(kinds)
        for kind in kinds:
            if kind == KEPT:
                cells = arena(contender, [first, second], args, folder)
                found[KEPT].append(float(cells[1].latency["p50_us"]))
                found["again"].append(float(cells[2].latency["p50_us"]))
            else:
                found[kind].append(float(arena(contender, [second], args, folder)[0].latency["p50_us"]))
        print(f"  {contender} round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in found.items()),
              file=sys.stderr, flush=True)
    return found


def spread(a: list[float], b: list[float]) -> float:
    """The median |log a/b| over rounds, as a percentage: how far two such measurements differ."""
    return (math.exp(statistics.median(abs(math.log(x / y)) for x, y in zip(a, b))) - 1) * 100


def row(contender: str, found: dict[str, list[float]]) -> str:
    fresh = found["fresh 1"] + found["fresh 2"]
    kept = stats.trial_ratio(found[KEPT], fresh)
    noise = stats.trial_ratio(found["fresh 1"], found["fresh 2"])
    return (f"{contender:16s} {statistics.median(fresh):10.1f} {statistics.median(found[KEPT]):10.1f} "
            f"{kept.text():>22s} {noise.text():>22s} {spread(found[KEPT], found['again']):9.1f}% "
            f"{spread(found['fresh 1'], found['fresh 2']):9.1f}%")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--contender", default=",".join(JAVA))
    parser.add_argument("--workloads", default="infobip.items10,infobip.items100",
                        help="A,B: a kept pair measures A then B; fresh pairs measure B")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--warmup", type=float, default=0.3, help="seconds asked (a --quick suite's 0.2-0.3)")
    args = parser.parse_args()
    args.workloads = args.workloads.split(",")
    if len(args.workloads) != 2:
        raise SystemExit("give --workloads A,B")
    wanted = [c for c in args.contender.split(",") if not contenders.get(c).unavailable()]
    with tempfile.TemporaryDirectory(prefix="jvm-reuse-") as scratch:  # the runs' documents, gone after
        table = [row(c, rounds(c, args, Path(scratch))) for c in wanted]
    print(f"p50 of {args.workloads[1]} x{args.clients}, {args.calls} calls, {args.rounds} rounds (kept: after "
          f"{args.workloads[0]} on the same pair); ratios over rounds with 95% intervals")
    print(f"{'mechanism':16s} {'fresh us':>10s} {'kept us':>10s} {'kept/fresh':>22s} {'fresh1/fresh2 (A/A)':>22s} "
          f"{'in 1 JVM':>10s} {'JVM-to-JVM':>10s}")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
