"""The arena: every planned cell measured by its runner, the results document saved as it goes.

One way through: plans -> a run context (placement, logs, backing services, the
link) -> for each plan, its runner's reason to skip or its measurement -> the
stored cell (`cell.cell_of`, the one place a cell is written) added to the results
document: saved whole before the first cell and at every end, each cell between
appended to its journal (`ResultsWriter.add`), so saving does not grow with the run.
The arena never asks what a plan measures; each plan's runner knows (`plan.CellRunner`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from rpcarena import environment
from rpcarena.config import RunConfig
from rpcarena.errors import ArenaError, HelperLost, Interrupted, Stop, ThresholdAborted, UnavailableError
from rpcarena.orchestration.cell import cell_of
from rpcarena.orchestration.context import OnInterval, OpenContext, RunContext, open_context
from rpcarena.orchestration.plan import Plan
from rpcarena.process import children
from rpcarena.results import Cell, Results, ResultsWriter, now

OnCell = Callable[[int, int, Plan, "Cell | None"], None]  # (index, total, plan, cell or None when starting)


class Arena:
    """Measures the plans of a run and keeps its results document current."""

    def __init__(self, config: RunConfig, plans: Sequence[Plan], on_cell: OnCell | None = None,
                 context: OpenContext = open_context, results: Results | None = None,
                 on_interval: OnInterval | None = None) -> None:
        self.config = config
        self.on_interval = on_interval  # the running cell's intervals as they close (a live line)
        self.plans = list(plans)
        self.on_cell = on_cell or (lambda *args: None)
        self.open_context = context  # a test gives one that starts no Redis and makes no link
        # a resumed run adds its cells to the document it continues
        self.writer = ResultsWriter(replace(results or Results(environment=environment.snapshot(),
                                                            config=config.to_json()), interrupted=None))
        self.lost: str | None = None  # why a helper every cell needs is gone (HelperLost): the run stops

    @property
    def results(self) -> Results:
        """The document so far."""
        return self.writer.results

    def run(self) -> Results:
        try:
            if self.plans:  # (a resumed run may have nothing left to measure)
                with self.open_context(self.config, [p.workload for p in self.plans]) as context, \
                        self._runners_opened(context) as opened:
                    self._note(context, opened)
                    self.writer.save(self.config.out)  # the journal of the cells continues this
                    self._run_all(replace(context, on_interval=self.on_interval))
        except ThresholdAborted as aborted:
            children.kill_all()
            self.writer.note(interrupted="--threshold abort")
            self.writer.save(self.config.out)
            raise ThresholdAborted(f"the run stopped: {aborted}; {len(self.results.cells)} cells measured before it "
                                   f"are kept in {self.config.out}") from None
        except KeyboardInterrupt as stop:
            children.kill_all()
            how, code = (stop.name, stop.exit_code) if isinstance(stop, Stop) else ("Ctrl-C", 130)
            self.writer.note(interrupted=how)
            self.writer.save(self.config.out)
            raise Interrupted(f"interrupted by {how}: {len(self.results.cells)} cells kept in {self.config.out}",
                              code) from None
        finally:
            children.kill_all()
        self.writer.note(finished=now())
        return self.writer.save(self.config.out)

    @contextlib.contextmanager
    def _runners_opened(self, context: RunContext) -> Iterator[list[dict[str, Any]]]:
        """What each runner of the plans opens for the run (once each), closed after the last cell."""
        runners = list({id(p.runner): p.runner for p in self.plans}.values())
        with contextlib.ExitStack() as stack:
            yield [note for r in runners if (note := stack.enter_context(r.opened(context))) is not None]

    def _note(self, context: RunContext, opened: list[dict[str, Any]]) -> None:
        self.writer.note(placement=context.placement.as_dict(),
                         link=context.link.describe() if context.link is not None else None,
                         wire_unavailable=context.wire_unavailable, cluster=opened[0] if opened else None)

    def _run_all(self, context: RunContext) -> None:
        for i, plan in enumerate(self.plans):
            self.on_cell(i, len(self.plans), plan, None)
            cell = self.measure(i, plan, context)
            failed = cell.status == "failed"
            self.writer.add(cell, f"{plan.label}: {cell.reason}" if failed else None)
            self.on_cell(i, len(self.plans), plan, cell)
            if failed:
                if self.config.fail_fast or self._stopped_by_loss(context, len(self.plans) - i - 1):
                    return

    def _stopped_by_loss(self, context: RunContext, left: int) -> bool:
        """A process every cell needs died or is stopped (the delay line, a Redis, HAProxy, a netns
        cluster's link): the run stops, saying so."""
        lost = self.lost or context.lost()
        if lost and left:
            failures = self.results.failures
            self.writer.note(failures=failures[:-1] + [failures[-1] + (
                f"; the run stopped there, {left} cell(s) not measured "
                f"(rpcarena run --resume {self.config.out} measures them)")])
        return lost is not None

    def measure(self, i: int, plan: Plan, context: RunContext) -> Cell:
        """One cell: skipped with its reason, measured, or failed with its reason (also when what its
        runner measured fails `--max-error-rate` or completed no call: `cell_of` gates it)."""
        started = now()
        skip = plan.runner.skip(plan, context)
        if skip:
            return cell_of(plan, self.config, started, status=skip[0], reason=skip[1])
        try:
            measured = plan.runner.measure(plan, context, context.logs / f"cell-{i:04d}")
        except UnavailableError as error:
            return cell_of(plan, self.config, started, status="unavailable", reason=str(error))
        except HelperLost as error:
            self.lost = str(error)
            return cell_of(plan, self.config, started, status="failed", reason=str(error))
        except ThresholdAborted:
            raise  # the run stops, not only the cell
        except ArenaError as error:
            return cell_of(plan, self.config, started, status="failed", reason=str(error))
        return cell_of(plan, self.config, started, measured)
