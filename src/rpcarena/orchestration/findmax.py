"""The highest open-loop rate that still meets a latency objective (--find-max --slo).

A closed-loop probe gives the capacity C at the configured concurrency; the
rate is then bisected between a rate that meets the objective and one that
does not, each probe a fresh open-loop cell (latency from the intended start,
so a saturated server cannot hide its queue). Every probe is kept in the
results; the answer is recorded in `results.find_max`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rpcarena.analysis.slo import Objective, verdict
from rpcarena.config import RunConfig
from rpcarena.errors import Interrupted
from rpcarena.orchestration.arena import Arena, OnCell
from rpcarena.orchestration.context import OpenContext, open_context
from rpcarena.orchestration.plan import Plan
from rpcarena.results import Cell, Results, ResultsWriter

PROBE_S = 2.0


def find_max(config: RunConfig, objectives: list[Objective], todo: list[Plan], steps: int = 6,
             on_cell: OnCell | None = None, context: OpenContext = open_context) -> Results:
    """Bisect the rate for each plan (contenders' or external targets'), each arena in `context`. No
    --max-error-rate gate: a probe past the rate where calls fail is what the search looks for."""
    config = dataclasses.replace(config, max_error_rate=None)
    base = dataclasses.replace(config, rate_per_s=None, calls=None, duration_s=config.duration_s or PROBE_S)
    writer = ResultsWriter(Arena(base, todo, on_cell, context).run())
    found = []
    for plan, cell in zip(todo, writer.results.cells):  # the arena keeps one cell per plan, in order
        if cell.status == "ok":
            found.append(_bisect(config, plan, cell, objectives, steps, writer, on_cell, context))
    writer.note(find_max=found)
    return writer.save(config.out)


def _bisect(config: RunConfig, plan: Plan, capacity: Cell, objectives: list[Objective], steps: int,
            writer: ResultsWriter, on_cell: OnCell | None, context: OpenContext) -> dict[str, Any]:
    """The search for one plan, the document saved whole with each probe as it is measured."""
    good, bad = 0.0, max(1.0, capacity.throughput_per_s * 1.2)
    probes = []
    rate = capacity.throughput_per_s * 0.5
    for _ in range(steps):
        cell = _probe(config, plan, rate, on_cell, writer, context)
        writer.note(cells=[*writer.results.cells, cell])
        writer.save(config.out)
        ok = verdict(cell, objectives)
        probes.append({"rate_per_s": rate, "meets": ok, **_node_calls(cell)})
        good, bad = (rate, bad) if ok else (good, rate)
        rate = (good + bad) / 2
    return {"contender": capacity.contender, "client": capacity.client, "workload": capacity.workload,
            "clients": capacity.clients, "capacity_per_s": capacity.throughput_per_s,
            "max_rate_per_s": good, "slo": [str(o) for o in objectives], "probes": probes}


def _node_calls(cell: Cell) -> dict[str, Any]:
    """A probe on a cluster: each client node's calls (its share of the rate); nothing on one machine."""
    nodes = cell.cluster.get("nodes", {}) if cell.cluster else {}
    names = cell.cluster.get("client_nodes", []) if cell.cluster else []
    return {"node_calls": {name: nodes[name].get("calls", 0) for name in names}} if names else {}


def _probe(config: RunConfig, plan: Plan, rate: float, on_cell: OnCell | None, writer: ResultsWriter,
           context: OpenContext) -> Cell:
    """One open-loop probe, measured into a scratch document named after --out (whose lock covers it);
    a stop during it marks the real --out file interrupted (the scratch one alone was marked), so a
    reader does not take it as finished."""
    probe = dataclasses.replace(config, calls=None, duration_s=config.duration_s or PROBE_S, rate_per_s=rate,
                                repeat=1, out=config.out.parent / ".probes" / f"{config.out.name}.probe.json")
    try:
        (cell,) = Arena(probe, [plan], on_cell, context).run().cells  # the trial its search is of
    except Interrupted as stop:
        how = str(stop).removeprefix("interrupted by ").partition(":")[0]
        writer.note(interrupted=how)
        writer.save(config.out)
        raise Interrupted(f"interrupted by {how} while probing {rate:,.0f} calls/s: "
                          f"{len(writer.results.cells)} cells kept in {config.out}", stop.exit_code) from None
    return cell
