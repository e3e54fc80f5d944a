"""Each suite's `--quick` in minutes on 2 idle CPUs, estimated from its cells: before (the whole --quick
design, every cell fresh) and now (the cells its claims read, suites/quick.py; a JVM client's pair kept
for a trial's cells, orchestration/kept.py). An estimate, not a measurement: the figure `suite --help`
shows is each suite's `quick_minutes`, measured whole on an idle machine where it says so.

A cell costs its kind's fixed cost (seconds; measure them with benchmarks/cell_overhead.py on an idle
machine and pass them here) plus its phase's round trips over a link:

    python     a Python server or client: processes, imports, teardown (default: usp2018's 13.0 min
               over 360 cells, measured whole on 2 idle CPUs on 2026-11-26)
    native     Go or Rust server and client (cell_overhead.py: 0.9-1.0 s at load 19)
    java       a JVM client's cell in a fresh pair: the JIT's warm-up until quiet (12-25 s measured
               idle), the two JVMs' start
    kept       a later cell of a kept pair: its own warm-up (at least a 1 s window of a quiet JIT)
    driver     each Python driver process past the first (a 100-client cell starts 16)
    link       calls per client x round trips x the link's round trip (a new connection per call: 2)

    .venv/bin/python benchmarks/quick_estimate.py [--python 2.2] [--native 0.9] [--java 22] [--kept 3]
        [--driver 1.4]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from rpcarena import contenders
from rpcarena.clients import is_python
from rpcarena.config import RunConfig
from rpcarena.contenders import native
from rpcarena.network import link
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.kept import FRESH_EACH_TRIAL, warms_once
from rpcarena.orchestration.phase import MAX_PYTHON_PROCS
from rpcarena.seeds import SUITES
from rpcarena.suites import runner

NEW_CONNECTION = ("py-newconn", "go-newconn")  # a TCP connection per call: its handshake's round trip too


def kinds(config: RunConfig, keep: bool) -> Counter[str]:
    """How many cells of each kind the configuration plans, and its link's seconds ('link s')."""
    found: Counter[str] = Counter()
    pairs: set[tuple[str, str, int]] = set()
    rtt_s = link.parse(config.link).rtt_s if config.link else 0.0
    for plan in contender_cells.plans(config):
        contender = contenders.get(plan.subject.id)
        client = None if is_python(plan.client) else native.client(plan.client, contender.protocol)
        key = (plan.subject.id, plan.client, plan.trial if FRESH_EACH_TRIAL else 0)
        if keep and warms_once(client):
            found["kept" if key in pairs else "java"] += 1
            pairs.add(key)
        elif client is not None and client.worker.language == "java" or contender.language == "java":
            found["java"] += 1
        elif is_python(plan.client) or contender.language == "python":
            found["python"] += 1
            found["driver"] += min(MAX_PYTHON_PROCS, plan.clients) - 1 if is_python(plan.client) else 0
        else:
            found["native"] += 1
        trips = 2 if plan.client in NEW_CONNECTION else 1
        found["link ms"] += round(1e3 * rtt_s * trips * (config.calls or 0) / plan.clients)
    return found


def suite_kinds(name: str, quick_cells: bool) -> Counter[str]:
    suite, out, total = SUITES[name], Path("/tmp/quick-estimate.json"), Counter[str]()
    if quick_cells:
        configs = [c for _, c, _ in runner.configs(suite, True, None, out, missing={})]
    else:
        configs = [runner.part_config(p, {}, True, None, out) for p in suite.parts]
    for config in configs:
        total += kinds(config, keep=quick_cells) if config else Counter()
    return total


def minutes(found: Counter[str], cost: dict[str, float]) -> float:
    return (sum(found[k] * cost[k] for k in cost) + found["link ms"] / 1e3) / 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for kind, default in (("python", 2.2), ("native", 0.9), ("java", 22.0), ("kept", 3.0), ("driver", 1.4)):
        parser.add_argument(f"--{kind}", type=float, default=default, help=f"seconds a {kind} cell (default {default})")
    args = parser.parse_args()
    cost = {k: getattr(args, k) for k in ("python", "native", "java", "kept", "driver")}
    print(f"seconds a cell: {', '.join(f'{k} {v:g}' for k, v in cost.items())}; plus the link's round trips")
    print(f"{'suite':12s} {'before: cells':>14s} {'min':>6s}   {'now: cells':>11s} {'python':>7s} {'native':>7s} "
          f"{'java':>5s} {'kept':>5s} {'link s':>7s} {'min':>6s}  {'help says':>9s}")
    for name, suite in SUITES.items():
        before, now = suite_kinds(name, False), suite_kinds(name, True)
        cells = sum(now[k] for k in ("python", "native", "java", "kept"))
        was = sum(before[k] for k in ("python", "native", "java", "kept"))
        print(f"{name:12s} {was:14d} {minutes(before, cost):6.1f}   {cells:11d} {now['python']:7d} {now['native']:7d} "
              f"{now['java']:5d} {now['kept']:5d} {now['link ms'] / 1e3:7.1f} {minutes(now, cost):6.1f}  "
              f"{suite.quick_minutes or 0:9g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
