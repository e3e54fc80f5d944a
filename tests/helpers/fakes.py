"""The arena without servers, and documents whose answer is known.

`FakeCells` is the cell runner that starts nothing (hyperfine's mock executor): the real arena,
its trials, suites and reports run over it. `trials` and `document` build results whose
statistics a test knows in advance (a judge's test, a report's).
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import rpcarena
from rpcarena.contract import DriveResult
from rpcarena.errors import ServerError
from rpcarena.network import wire
from rpcarena.orchestration import contender_cells, debug_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.plan import CellRunner, Plan
from rpcarena.process.server_process import Usage
from tests.helpers import FIXTURE


class FakeCells(CellRunner):
    """A cell runner that starts nothing (hyperfine's mock executor): every cell it measures returns
    the fixture's first measured cell as a template measurement (the arena labels and stores it),
    so the arena, --repeat, --find-max, suites and reports run without a server. `fail` names
    contenders whose cells fail; `skip` those skipped; `wrong` the share of each named contender's
    calls answered wrong (1.0: every call); `empty` those whose cells complete no call and count none."""

    def __init__(self, fail: tuple[str, ...] = (), skip: tuple[str, ...] = (), wrong: dict[str, float] | None = None,
                 empty: tuple[str, ...] = ()) -> None:
        self.template = template_measurement(rpcarena.load(FIXTURE).cells[0])
        self.fail, self.skip_ids, self.wrong, self.empty = fail, skip, dict(wrong or {}), empty
        self.measured: list[str] = []

    def skip(self, plan: Plan, context: RunContext):
        return ("unsupported", "skipped by the fake runner") if plan.subject.id in self.skip_ids else None

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        self.measured.append(plan.label)
        if plan.subject.id in self.fail:
            raise ServerError(f"{plan.subject.id} server died (fake)")
        measured = dataclasses.replace(self.template, warmup_s=context.config.warmup_s)
        if plan.subject.id in self.empty:
            return _answered(measured, 0, {})
        share = self.wrong.get(plan.subject.id, 0.0)
        failed = round(measured.clients.calls * share)
        return _answered(measured, measured.clients.calls - failed, {"wrong_answer": failed} if failed else {})


def _answered(measured: Measurement, calls: int, errors: dict[str, int]) -> Measurement:
    """The measurement with `calls` verified and `errors` failed (no latencies when none was verified)."""
    said = {kind: "expected {'value': 1}, got {'value': 2}" for kind in errors}
    clients = dataclasses.replace(measured.clients, calls=calls, errors=errors, error_examples=said)
    if not calls:
        clients = dataclasses.replace(clients, histogram=None, samples=[])
    return dataclasses.replace(measured, clients=clients)


def template_measurement(cell) -> Measurement:
    """A stored cell's figures as the measurement a runner would have returned for it."""
    clients = DriveResult(calls=cell.calls, errors=dict(cell.errors), wall_s=cell.wall_s,
                          cpu_user_s=cell.client_cpu_user_s, cpu_sys_s=cell.client_cpu_sys_s,
                          histogram=cell.latency_histogram, samples=copy.deepcopy(cell.samples_ns), tool={})
    wired = wire.Count(cell.wire_in_bytes, cell.wire_in_packets, cell.wire_out_bytes, cell.wire_out_packets)
    return Measurement(clients, cell.client_processes,
                       ServerFigures(Usage(cell.server_cpu_user_s, cell.server_cpu_sys_s), wired))


NOISE = (1.0, 1.02, 0.98, 1.01, 0.99)  # five trials that differ a little, as trials do


def trials(contender: str, workload: str, scale: float = 1.0, *, clients: int = 1, noise=NOISE,
           link: str | None = None, cpu: float | None = None) -> list:
    """A group of trials cut from the fixture's first cell, relabelled: trial k's latencies are the
    fixture's times `scale` times noise[k]; its CPU per call the fixture's times `cpu` (default
    `scale`) times noise[k]. A judge's test builds its document from these, so it knows the answer."""
    template = rpcarena.load(FIXTURE).cells[0]
    out = []
    for k, wobble in enumerate(noise):
        spent = (scale if cpu is None else cpu) * wobble
        cpus = {name: getattr(template, name) * spent
                for name in ("client_cpu_user_s", "client_cpu_sys_s", "server_cpu_user_s", "server_cpu_sys_s")}
        out.append(dataclasses.replace(template.slowed(scale * wobble), contender=contender, workload=workload,
                                       clients=clients, trial=k, link=link, **cpus))
    return out


def document(*groups: list) -> rpcarena.Results:
    """A results document of these groups of trials (see `trials`)."""
    return rpcarena.Results(cells=[cell for g in groups for cell in g])


def fake_plans(config, runner=None):
    """The configuration's contender plans, each measured by the fake runner."""
    runner = runner or FakeCells()
    return [dataclasses.replace(p, runner=runner) for p in contender_cells.plans(config)]


# a run context that starts no Redis and makes no link (the suites' network parts included): --debug-mode's
fake_context = debug_cells.context


def fake_arena(config, runner=None):
    """The real arena over fake cells: what suite tests run in place of measuring."""
    return Arena(config, fake_plans(config, runner), context=fake_context).run()
