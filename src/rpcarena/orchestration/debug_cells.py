"""`--debug-mode` (hidden, as hyperfine's): every cell's figures made up, nothing measured.

The command runs whole (its checks, the plans and their order, trials, the results document, the
answer, the report, the exit code) over this runner and this context, which start nothing: no
server, no driver, no Redis, no link, no byte counter. It is for tests of what a command prints,
writes and exits with, which then take a fraction of a second a cell. A made-up cell says so: its
client tool is `debug-mode`, and the document's wire note is `DEBUG`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import zlib
from collections.abc import Iterator
from pathlib import Path

from rpcarena.config import RunConfig
from rpcarena.contract import DriveResult
from rpcarena.orchestration.backing import Backing
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.plan import CellRunner, Plan, Subject
from rpcarena.process.placement import plan as placement_plan
from rpcarena.process.server_process import Usage
from rpcarena.record import hist
from rpcarena.workloads import Workload

DEBUG = "not measured: --debug-mode"
CALLS = 1000  # a cell's calls when the configuration gives a duration instead
LATENCY_NS = 100_000
# a call's latency as a share of its cell's: a body and a tail, so that every percentile differs
SHAPE = (0.9, 0.95, 0.97, 1.0, 1.0, 1.0, 1.02, 1.05, 1.1, 1.2, 1.5, 3.0)
TRIAL_WOBBLE = (1.0, 1.02, 0.98, 1.01, 0.99)  # trials differ a little, as trials do


class DebugCells(CellRunner):
    """Measures every cell by making it up: a latency of its own per subject (so a ranking has an
    order; the tcp-raw floor the least, as a bare echo is), a few percent apart between trials, every
    call answered right."""

    def skip(self, plan: Plan, context: RunContext) -> None:
        return None

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        config = context.config
        calls = config.calls or CALLS
        latency_ns = LATENCY_NS * _slower(plan.subject) * TRIAL_WOBBLE[plan.trial % len(TRIAL_WOBBLE)]
        latencies = [int(latency_ns * SHAPE[k % len(SHAPE)]) for k in range(calls)]
        histogram = hist.new()
        hist.record_many(histogram, latencies)
        wall_s = calls * latency_ns / 1e9 / plan.clients
        cpu_s = wall_s / 4
        samples = [[k, ns] for k, ns in enumerate(latencies[:config.sample_limit])]  # (call index, latency)
        clients = DriveResult(calls=calls, errors={}, wall_s=wall_s, cpu_user_s=cpu_s, cpu_sys_s=cpu_s / 4,
                              histogram=hist.encode(histogram), samples=samples, tool={"name": "debug-mode"})
        return Measurement(clients, 1, ServerFigures(Usage(cpu_s, cpu_s / 4)), warmup_s=config.warmup_s)


def _slower(subject: Subject) -> float:
    """How much longer than the floor a subject's made-up call takes: 1 for a floor, 1.25 to 3 for the rest."""
    return 1.0 if subject.protocol == "tcp-raw" else 1.25 + zlib.crc32(subject.id.encode()) % 8 / 4


def plans(todo: list[Plan]) -> list[Plan]:
    """The plans, each measured by `DebugCells`."""
    runner = DebugCells()
    return [dataclasses.replace(p, runner=runner) for p in todo]


@contextlib.contextmanager
def context(config: RunConfig, workloads: list[Workload]) -> Iterator[RunContext]:
    """A run's context that starts no Redis, makes no link and counts no bytes."""
    with Backing([], {}, config.host) as backing:
        yield RunContext(config, placement_plan("none"), Path(config.out).parent / "logs", backing, None, DEBUG)
