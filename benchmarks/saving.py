"""What saving the results costs per cell as a run grows: linear in cells, or worse.

The real arena measures a 1,000-cell run over a fake runner that starts nothing (every cell the
test fixture's first, its raw samples grown to --samples, as a real cell of that many calls keeps),
so all that is timed is the arena's own work per cell: building the cell and saving it. It prints
the time per cell around the 100th, 500th and 1,000th cell (the mean over the 20 cells before each)
and the time of the whole run. A save that rewrites the whole document grows with the cells
already saved; an appended journal stays flat.

    .venv/bin/python benchmarks/saving.py [--cells 1000] [--samples 1000] [--out /tmp/saving.json]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rpcarena import load, seeds
from rpcarena.config import RunConfig
from rpcarena.contract import DriveResult
from rpcarena.network import wire
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.backing import Backing
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.plan import CellRunner, Plan
from rpcarena.process import placement
from rpcarena.process.server_process import Usage

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "results_usp_int32_small.json"
MARKS = (100, 500, 1000)
WINDOW = 20  # cells averaged before each mark


class Template(CellRunner):
    """Measures nothing: every cell is the fixture's first, with `samples` raw samples."""

    def __init__(self, samples: int) -> None:
        cell = load(FIXTURE).cells[0]
        grown = [[i, ns] for i, (_, ns) in zip(range(samples), itertools.cycle(cell.samples_ns))]
        clients = DriveResult(calls=cell.calls, errors=dict(cell.errors), wall_s=cell.wall_s,
                              cpu_user_s=cell.client_cpu_user_s, cpu_sys_s=cell.client_cpu_sys_s,
                              histogram=cell.latency_histogram, samples=grown, tool={})
        wired = wire.Count(cell.wire_in_bytes, cell.wire_in_packets, cell.wire_out_bytes, cell.wire_out_packets)
        self.measurement = Measurement(clients, cell.client_processes,
                                       ServerFigures(Usage(cell.server_cpu_user_s, cell.server_cpu_sys_s), wired))

    def skip(self, plan: Plan, context: RunContext) -> None:
        return None

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        return self.measurement


@contextlib.contextmanager
def no_services(config: RunConfig, workloads: Any) -> Iterator[RunContext]:
    with Backing([], {}, config.host) as backing:
        yield RunContext(config, placement.plan("none"), Path(config.out).parent / "logs", backing, None,
                         "not counted: a fake run")


def plans(cells: int, out: Path, runner: CellRunner) -> tuple[RunConfig, list[Plan]]:
    """`cells` plans: tcp-raw over the usp workloads, as many trials as it takes."""
    loads = sorted(w for w in seeds.WORKLOADS if w.startswith("usp."))
    config = RunConfig(contenders=["tcp-raw"], workloads=loads, repeat=-(-cells // len(loads)), out=out)
    made = [dataclasses.replace(p, runner=runner) for p in contender_cells.plans(config)][:cells]
    return config, made


def run(cells: int, samples: int, out: Path) -> tuple[list[float], float]:
    """Each cell's time (s) from the previous cell's end, and the whole run's."""
    config, todo = plans(cells, out, Template(samples))
    ends: list[float] = []

    def on_cell(index: int, total: int, plan: Plan, cell: Any) -> None:
        if cell is not None:
            ends.append(time.perf_counter())
    start = time.perf_counter()
    Arena(config, todo, on_cell, context=no_services).run()
    whole = time.perf_counter() - start
    return [b - a for a, b in zip([start, *ends], ends)], whole


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cells", type=int, default=1000)
    p.add_argument("--samples", type=int, default=1000, help="raw samples per cell (a cell of 1,000 calls keeps 1,000)")
    p.add_argument("--out", help="where the document goes (default: a scratch folder)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="saving-") as scratch:
        out = Path(args.out) if args.out else Path(scratch) / "saving.json"
        each, whole = run(args.cells, args.samples, out)
        size = out.stat().st_size
        doc = json.loads(out.read_text())
    print(f"{len(doc['cells'])} cells, {args.samples} samples each, document {size / 2**20:.1f} MiB, "
          f"whole run {whole:.2f} s")
    print(f"{'cell':>6} {'ms per cell':>12}  (mean of the {WINDOW} cells before)")
    for mark in (m for m in MARKS if m <= len(each)):
        window = each[mark - WINDOW:mark]
        print(f"{mark:>6} {1000 * sum(window) / len(window):>12.2f}")


if __name__ == "__main__":
    main()
