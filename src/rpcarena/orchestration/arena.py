"""The arena: every planned cell measured by its runner, the results document saved as it goes.

One way through: plans -> a run context (placement, logs, backing services, the
link) -> for each plan, its runner's reason to skip or its measurement -> the
cell appended to the results document, which is saved after every cell. The
arena never asks what a plan measures; each plan's runner knows (`plan.CellRunner`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rpcarena import contenders, environment
from rpcarena.config import RunConfig
from rpcarena.errors import ArenaError, Interrupted, Stop, UnavailableError
from rpcarena.orchestration.context import OpenContext, RunContext, open_context
from rpcarena.orchestration.plan import Plan
from rpcarena.process import children
from rpcarena.results import Cell, Results, now

OnCell = Callable[[int, int, Plan, "Cell | None"], None]  # (index, total, plan, cell or None when starting)


class Arena:
    """Measures the plans of a run and keeps its results document current."""

    def __init__(self, config: RunConfig, plans: Sequence[Plan], on_cell: OnCell | None = None,
                 context: OpenContext = open_context, results: Results | None = None) -> None:
        self.config = config
        self.plans = list(plans)
        self.on_cell = on_cell or (lambda *args: None)
        self.open_context = context  # a test gives one that starts no Redis and makes no link
        # a resumed run adds its cells to the document it continues
        self.results = results or Results(environment=environment.snapshot(), config=config.to_json())
        self.results.interrupted = None

    def run(self) -> Results:
        try:
            if self.plans:  # (a resumed run may have nothing left to measure)
                with self.open_context(self.config, [p.workload for p in self.plans]) as context, \
                        self._runners_opened(context) as opened:
                    self._note(context, opened)
                    self._run_all(context)
        except KeyboardInterrupt as stop:
            children.kill_all()
            how, code = (stop.name, stop.exit_code) if isinstance(stop, Stop) else ("Ctrl-C", 130)
            self.results.interrupted = how
            self.results.save(self.config.out)
            raise Interrupted(f"interrupted by {how}: {len(self.results.cells)} cells kept in {self.config.out}",
                              code) from None
        finally:
            children.kill_all()
        self.results.finished = now()
        self.results.save(self.config.out)
        return self.results

    @contextlib.contextmanager
    def _runners_opened(self, context: RunContext) -> Iterator[list[dict[str, Any]]]:
        """What each runner of the plans opens for the run (once each), closed after the last cell."""
        runners = list({id(p.runner): p.runner for p in self.plans}.values())
        with contextlib.ExitStack() as stack:
            yield [note for r in runners if (note := stack.enter_context(r.opened(context))) is not None]

    def _note(self, context: RunContext, opened: list[dict[str, Any]]) -> None:
        self.results.placement = context.placement.as_dict()
        self.results.link = context.link.describe() if context.link is not None else None
        self.results.wire_unavailable = context.wire_unavailable
        self.results.cluster = opened[0] if opened else None

    def _run_all(self, context: RunContext) -> None:
        for i, plan in enumerate(self.plans):
            self.on_cell(i, len(self.plans), plan, None)
            cell = self.measure(i, plan, context)
            self.results.cells.append(cell)
            self.results.save(self.config.out)
            self.on_cell(i, len(self.plans), plan, cell)
            if cell.status == "failed":
                self.results.failures.append(f"{plan.label}: {cell.reason}")
                if self.config.fail_fast or self._stopped_by_loss(context, len(self.plans) - i - 1):
                    return

    def _stopped_by_loss(self, context: RunContext, left: int) -> bool:
        """A process every cell needs died (the delay line, a Redis): the run stops, saying so."""
        lost = context.lost()
        if lost and left:
            self.results.failures[-1] += (f"; the run stopped there, {left} cell(s) not measured "
                                          f"(rpcarena run --resume {self.config.out} measures them)")
        return lost is not None

    def measure(self, i: int, plan: Plan, context: RunContext) -> Cell:
        """One cell: skipped with its reason, measured, or failed with its reason."""
        cell = self._new_cell(plan)
        skip = plan.runner.skip(plan, context)
        if skip:
            cell.status, cell.reason = skip
            return cell
        try:
            plan.runner.measure(plan, context, cell, context.logs / f"cell-{i:04d}")
        except UnavailableError as error:
            cell.status, cell.reason = "unavailable", str(error)
        except ArenaError as error:
            cell.status, cell.reason = "failed", str(error)
        return cell

    def _new_cell(self, p: Plan) -> Cell:
        return Cell(contender=p.subject.id, client=p.client, workload=p.workload.id, method=p.workload.method,
                    clients=p.clients, trial=p.trial, protocol=p.subject.protocol, language=p.subject.language,
                    client_language=contenders.client_language(p.client),
                    rate_per_s=self.config.rate_per_s, link=self.config.link, via=self.config.via,
                    stages=[dict(s) for s in self.config.rate_stages or []], started=now())
