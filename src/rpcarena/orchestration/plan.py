"""What a run measures: one plan per cell, each naming the runner that knows how to measure it.

A plan's subject is what is measured: a contender rpcarena starts fresh for the
cell, or an external target it only calls. The arena never asks which: it asks
the plan's runner (`CellRunner`) why the cell cannot run, and to measure it. A
new kind of cell (a remote host, a cluster node) is a new runner, not a branch.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement
from rpcarena.workloads import Workload

Skip = tuple[str, str]  # (status, reason): "unavailable" or "unsupported", and why


class Subject(Protocol):
    """What a cell measures: a contender or an external target."""

    @property
    def id(self) -> str: ...

    @property
    def protocol(self) -> str: ...

    @property
    def language(self) -> str: ...


class CellRunner(Protocol):
    """How one kind of cell is measured (a contender's fresh server, an external target, ...).

    A runner subclasses it to keep `opened`, which opens nothing."""

    def opened(self, context: RunContext) -> contextlib.AbstractContextManager[dict[str, Any] | None]:
        """What this runner's cells share over the run and it opens itself (a cluster's engine), open
        from the first cell to the last; yields what the results record of it (`Results.cluster`)."""
        return contextlib.nullcontext(None)

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        """Why this cell cannot run here, or None."""

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        """Measure the cell and return what was measured (the arena stores it); raise an ArenaError
        when it fails."""


@dataclass(frozen=True)
class Plan:
    """One cell to measure."""

    subject: Subject
    client: str
    workload: Workload
    clients: int
    trial: int
    runner: CellRunner
    client_language: str  # the client's (py, go, rust, ...), from the registry that built the plan

    @property
    def label(self) -> str:
        return f"{self.subject.id}<-{self.client} {self.workload.id} x{self.clients}"
