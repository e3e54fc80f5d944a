"""Cells against an external target: a server rpcarena did not start, only calls.

The runner of `rpcarena target`'s plans. Nothing is started or stopped; the
target is checked reachable, its CPU is read when its pid is known, and Python
drivers call it with the requests rendered before measuring and the checks of
each as the expected responses.
"""

from __future__ import annotations

from pathlib import Path

from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec
from rpcarena.external import native
from rpcarena.external.target import ExternalServer, Target
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.phase import DriverSpec, python_drivers
from rpcarena.orchestration.plan import Plan, Skip
from rpcarena.results import Cell


def plans(targets: list[Target], config: RunConfig) -> list[Plan]:
    """Trials outermost so that targets alternate (a drifting machine affects all alike)."""
    return [Plan(t, client, t.workload, clients, trial, TargetCells(t))
            for trial in range(config.repeat) for clients in config.clients for t in targets
            for client in config.client_drivers or [native.PYTHON]]


class TargetCells:
    """The runner of one target's cells."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        if context.config.via or context.config.link:
            return "unsupported", "an external target is measured where it runs (no --via, no --link)"
        return native.cannot(self.target, plan.client)

    def measure(self, plan: Plan, context: RunContext, cell: Cell, logs: Path) -> None:
        server = ExternalServer(self.target).start()
        specs = (driver_specs if plan.client == native.PYTHON else native.driver_specs)(self.target, plan,
                                                                                        context.config)
        measure(server, specs, context, cell, logs)


def driver_specs(target: Target, p: Plan, config: RunConfig) -> list[DriverSpec]:
    """Python drivers with the target's description: they build its client, not a contender's."""
    return python_drivers(DriveSpec(
        contender=target.id, target=target.address, method=target.method, requests=list(target.requests),
        responses=list(target.checks), clients=p.clients, warmup_s=config.warmup_s, calls=config.calls,
        duration_s=config.duration_s, timeout_ms=config.timeout_ms, sample_limit=config.sample_limit,
        rate_per_s=config.rate_per_s, arrival=config.arrival, client="py", external=target.description))
