"""Cells against an external target: a server rpcarena did not start, only calls.

The runner of `rpcarena target`'s plans. Nothing is started or stopped; the
target is checked reachable, its CPU is read when its pid is known, and Python
drivers call it with the requests rendered before measuring and the checks of
each as the expected responses. The arena fails a cell whose failed calls exceed
`--max-error-rate` (`orchestration.error_gate`, as for every runner), so that a run can gate CI.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from rpcarena.config import RunConfig
from rpcarena.contenders import client_language
from rpcarena.contract import DriveSpec
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.measurement import Measurement
from rpcarena.orchestration.phase import DriverSpec, python_drivers
from rpcarena.orchestration.plan import CellRunner, Plan, Skip
from rpcarena.process.placement import where
from rpcarena.target_runner import native
from rpcarena.targets.target import ExternalServer, Target


def plans(targets: list[Target], config: RunConfig, runner: CellRunner | None = None) -> list[Plan]:
    """Trials outermost so that targets alternate (a drifting machine affects all alike); each
    target's own runner here, or `runner` for all (a cluster's, which holds one connection)."""
    return [Plan(t, client, t.workload, clients, trial, runner or TargetCells(t), client_language(client))
            for trial in range(config.repeat) for clients in config.clients for t in targets
            for client in config.client_drivers or [native.PYTHON]]


class TargetCells(CellRunner):
    """The runner of one target's cells."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        if context.config.via or context.config.link:
            return "unsupported", "an external target is measured where it runs (no --via, no --link)"
        return native.cannot(self.target, plan.client)

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        """The target measured (the arena's `error_gate` judges its failed calls)."""
        server = ExternalServer(self.target).start()
        specs = (driver_specs if plan.client == native.PYTHON else native.driver_specs)(self.target, plan,
                                                                                        context.config)
        measured = measure(server, specs, context, logs)
        return replace(measured, placement=placed(self.target, context, measured.placement))


def placed(target: Target, context: RunContext, measured: Mapping[str, Any]) -> dict[str, Any]:
    """Where everything ran: rpcarena pins no server it did not start, and says so."""
    clients = context.placement.clients
    return dict(measured, server_cpus=None, server=f"external at {target.address}, not pinned by rpcarena",
                clients_ran_on=list(clients) if clients else where(os.getpid()))


def driver_specs(target: Target, p: Plan, config: RunConfig) -> list[DriverSpec]:
    """Python drivers with the target's description: they build its client, not a contender's
    (with the exact timeout, as native drivers get it: `native.external`)."""
    return python_drivers(drive_spec(target, p, config))


def drive_spec(target: Target, p: Plan, config: RunConfig) -> DriveSpec:
    """What the Python drivers of a target's cell are asked, wherever they run."""
    return DriveSpec.for_cell(config, contender=target.id, target=target.address, method=target.method,
                              requests=target.requests, responses=target.checks, clients=p.clients, client="py",
                              external=native.external(target, config))
