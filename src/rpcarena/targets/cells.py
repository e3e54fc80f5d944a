"""Cells against an external target: a server rpcarena did not start, only calls.

The runner of `rpcarena target`'s plans. Nothing is started or stopped; the
target is checked reachable, its CPU is read when its pid is known, and Python
drivers call it with the requests rendered before measuring and the checks of
each as the expected responses. A measured cell whose failed calls exceed
`--max-error-rate` fails (its figures kept), so that a run can gate CI.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec
from rpcarena.errors import ThresholdFailed
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.measurement import Measurement
from rpcarena.orchestration.phase import DriverSpec, python_drivers
from rpcarena.orchestration.plan import CellRunner, Plan, Skip
from rpcarena.process.placement import where
from rpcarena.targets import native
from rpcarena.targets.target import ExternalServer, Target


class Labelled(Protocol):
    """What the gate names a failed cell by (a plan)."""

    @property
    def label(self) -> str: ...


class Counted(Protocol):
    """What the gate reads of a cell's calls: a merged drive result, or a stored cell."""

    @property
    def calls(self) -> int: ...

    @property
    def errors(self) -> Mapping[str, int]: ...

    @property
    def error_examples(self) -> Mapping[str, str]: ...


@dataclass
class Gate:
    """`--max-error-rate`: the share of calls sent that may fail (0: none); the cells it failed."""

    max_error_rate: float | None = 0.0  # None: no gate (a --find-max search probes past failures)
    failed: list[str] = field(default_factory=list)

    def check(self, plan: Labelled, counted: Counted) -> None:
        errors = {kind: n for kind, n in counted.errors.items() if n}
        failed = sum(errors.values())
        sent = counted.calls + failed
        if self.max_error_rate is None or not sent or failed / sent <= self.max_error_rate:
            return
        self.failed.append(plan.label)
        kinds = ", ".join(f"{kind} {n:,}" for kind, n in sorted(errors.items()))
        worst = max(errors, key=lambda kind: errors[kind])
        raise ThresholdFailed(f"{failed:,} of {sent:,} calls failed ({failed / sent:.1%}: {kinds}), above "
                              f"--max-error-rate {self.max_error_rate * 100:g}%; e.g. {worst}: "
                              f"{example(worst, counted.error_examples.get(worst, worst))}")


def example(kind: str, text: str) -> str:
    """An error example without its kind in front (the Go driver's examples start with it, and the
    kind is printed before them: 'timeout: timeout: ...')."""
    return text.removeprefix(f"{kind}: ") or text


def plans(targets: list[Target], config: RunConfig, gate: Gate | None = None,
          runner: CellRunner | None = None) -> list[Plan]:
    """Trials outermost so that targets alternate (a drifting machine affects all alike); each
    target's own runner here, or `runner` for all (a cluster's, which holds one connection)."""
    gate = gate or Gate(None)
    return [Plan(t, client, t.workload, clients, trial, runner or TargetCells(t, gate))
            for trial in range(config.repeat) for clients in config.clients for t in targets
            for client in config.client_drivers or [native.PYTHON]]


class TargetCells(CellRunner):
    """The runner of one target's cells."""

    def __init__(self, target: Target, gate: Gate) -> None:
        self.target = target
        self.gate = gate

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        if context.config.via or context.config.link:
            return "unsupported", "an external target is measured where it runs (no --via, no --link)"
        return native.cannot(self.target, plan.client)

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        """The target measured; a cell past --max-error-rate fails, its figures kept."""
        server = ExternalServer(self.target).start()
        specs = (driver_specs if plan.client == native.PYTHON else native.driver_specs)(self.target, plan,
                                                                                        context.config)
        measured = measure(server, specs, context, logs)
        measured = replace(measured, placement=placed(self.target, context, measured.placement))
        return gated(self.gate, plan, measured)


def gated(gate: Gate, plan: Plan, measured: Measurement) -> Measurement:
    """The measured cell, failed (its figures kept) when its failed calls pass the gate."""
    try:
        gate.check(plan, measured.clients)
    except ThresholdFailed as failed:
        return replace(measured, failed=str(failed))
    return measured


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
    return DriveSpec(
        contender=target.id, target=target.address, method=target.method, requests=list(target.requests),
        responses=list(target.checks), clients=p.clients, warmup_s=config.warmup_s, calls=config.calls,
        duration_s=config.duration_s, timeout_ms=config.whole_timeout_ms, sample_limit=config.sample_limit,
        interval_s=config.interval_s, connections=config.connections,
        rate_per_s=config.rate_per_s, stages=config.rate_stages, arrival=config.arrival, client="py",
        external=native.external(target, config))
