"""The live progress line at any width from 80 columns: the count, the bar and the ETA first and whole;
a cell that starts is never shown beside the figures of the one before (issue 40)."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.report.progress import CellProgress
from tests.conftest import FakeCells, fake_context, fake_plans


def live_line(progress: CellProgress, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, force_terminal=True)
    console.print(progress.bar.make_tasks_table(progress.bar.tasks))
    return console.export_text().rstrip("\n")


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_count_bar_and_eta_come_first_and_whole(width, tmp_path):
    config = RunConfig(contenders=["grpc-py", "rest-fastapi"], workloads=["usp.int32"], calls=10, warmup_s=0,
                       out=tmp_path / "r.json")
    terminal = Console(file=io.StringIO(), width=width, force_terminal=True)
    seen: list[str] = []
    with CellProgress(terminal) as progress:
        runner = FakeCells()

        def measure(plan, context, logs, measure=runner.measure):
            seen.append(live_line(progress, width))  # the line while the cell runs
            return measure(plan, context, logs)
        runner.measure = measure
        Arena(config, fake_plans(config, runner), progress, context=fake_context).run()
    assert len(seen) == 2
    for k, line in enumerate(seen):
        assert len(line) <= width and re.match(rf"{k}/2 \S+ \d:\d\d elapsed", line), line
    assert "grpc-py" not in seen[1].split("rest-fastapi")[-1]  # no figure of the cell before beside this one
    assert "calls/s" not in seen[1]
