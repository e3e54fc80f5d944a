"""Progress of a run, on stderr: cells done of all, elapsed, ETA, the last cell's calls/s and errors,
and on a terminal the running cell's last interval (calls/s, p99, errors) as its drivers close them.

On a terminal, one live line that is replaced by a final line that stays; elsewhere (CI logs,
a pipe) one plain line per cell, so a long run is never silent. The arena calls it back per
cell (`Arena.on_cell`); a suite names its part ("part 2 of 3").
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Column

from rpcarena.orchestration.plan import Plan
from rpcarena.record.intervals import LiveInterval
from rpcarena.report import terminal
from rpcarena.results import Cell


def _cut(ratio: int) -> Column:
    """A column of the live line that takes its share of the width left and is cut at its end."""
    return Column(no_wrap=True, overflow="ellipsis", ratio=ratio)


def clock(seconds: float) -> str:
    """'1:05' or '1:02:03'."""
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def outcome(cell: Cell) -> str:
    """'ok, 3,100 calls/s, 0 errors' or 'unavailable: why'."""
    if cell.status != "ok":
        return f"{cell.status}: {cell.reason or ''}"
    return f"ok, {cell.calls:,} calls, {cell.throughput_per_s:,.0f} calls/s, {cell.error_count:,} errors"


STATUS_ORDER = ("ok", "failed", "unsupported", "unavailable")  # the final line's: '39 ok, 1 failed, 12 unsupported'


def _said_first(item: tuple[str, int]) -> tuple[int, str]:
    status = item[0]
    return (STATUS_ORDER.index(status) if status in STATUS_ORDER else len(STATUS_ORDER), status)


def now_text(live: LiveInterval) -> str:
    """'now: 3,100 calls/s, p99 1.20 ms, 0 errors (at 12s)': the running cell's last closed interval."""
    p99 = "-" if live.p99_us is None else terminal.duration(live.p99_us)
    return f"now: {live.calls_per_s:,.0f} calls/s, p99 {p99}, {live.errors:,} errors (at {live.start_s:g}s)"


class CellProgress:
    """The `on_cell` of an arena run: a live line on a terminal, plain lines elsewhere (and with
    `verbose` on a terminal too), nothing if quiet."""

    def __init__(self, console: Console, part: str = "", quiet: bool = False, verbose: bool = False) -> None:
        self.console, self.quiet, self.verbose = console, quiet, verbose
        self.part = f"{part}: " if part else ""
        self.live = console.is_terminal and not quiet
        self.start = time.monotonic()
        self.done = 0
        self.total = 0
        self.statuses: dict[str, int] = {}
        self.errors = 0
        # the count, the bar and the ETA first and whole at any width; the running cell's name and its
        # last interval share what is left, cut at their ends (a live line, replaced as it goes)
        self.bar = Progress(MofNCompleteColumn(table_column=Column(no_wrap=True)),
                            BarColumn(bar_width=20, table_column=Column(no_wrap=True)),
                            TextColumn("{task.fields[times]}", table_column=Column(no_wrap=True)),
                            TextColumn("[bold]{task.description}", table_column=_cut(1)),
                            TextColumn("[dim]{task.fields[last]}", table_column=_cut(1)),
                            console=console, transient=True, expand=True)
        self.task = self.bar.add_task("starting", total=None, times="", last="")

    def __enter__(self) -> CellProgress:
        if self.live:
            self.bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.live:
            self.bar.stop()
        if not self.quiet and self.total:
            self.console.print(self.final())

    def eta(self) -> str:
        elapsed = time.monotonic() - self.start
        if not self.done:
            return f"{clock(elapsed)} elapsed"
        return f"{clock(elapsed)} elapsed, ETA {clock(elapsed / self.done * (self.total - self.done))}"

    def final(self) -> str:
        """The line that stays: what was measured, how it went, how long it took."""
        how = ", ".join(f"{n} {status}" for status, n in sorted(self.statuses.items(), key=_said_first))
        errors = f", {self.errors:,} failed calls" if self.errors else ""
        said = f" ({how}{errors})" if how else ""
        return f"{self.part}{self.done} of {self.total} cells in {clock(time.monotonic() - self.start)}{said}"

    def on_interval(self, live: LiveInterval) -> None:
        """The running cell's last closed interval, on the live line (a terminal only: elsewhere a
        line a second would bury the per-cell lines)."""
        if self.live:
            self.bar.update(self.task, last=escape(now_text(live)))

    def __call__(self, i: int, total: int, plan: Plan, cell: Cell | None) -> None:
        self.total = total
        if cell is None:  # a cell starts: its name, and no figure of the one before beside it
            self.bar.update(self.task, total=total, completed=i, description=escape(self.part + plan.label),
                            times=self.eta(), last="")
            return
        self.done = i + 1
        self.statuses[cell.status] = self.statuses.get(cell.status, 0) + 1
        self.errors += cell.error_count
        last = outcome(cell) if cell.status == "ok" else cell.status  # of the cell the line still names
        self.bar.update(self.task, completed=self.done, times=self.eta(), last=escape(last))
        if (self.verbose or not self.live) and not self.quiet:
            self.console.print(f"{self.part}cell {self.done}/{total} {plan.label}: {outcome(cell)} ({self.eta()})",
                               markup=False, highlight=False, soft_wrap=True)
