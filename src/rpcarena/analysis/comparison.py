"""Compare two results documents cell by cell, like benchstat or pyperf compare_to.

For each (contender, client, workload, clients) present in both, the ratio B/A of
the median and of the p99, with its 95% interval over trials: each trial's
statistic is one value, and the trials of A are compared with the trials of B
(`stats.trial_ratio`), plus what separate runs differ by beyond their trials
(`stats.RUN_TO_RUN`). Calls are not the unit: two runs a minute apart differ by
more than their calls vary within one run. A ratio whose interval spans 1 is "not
significant"; with fewer than `stats.MIN_TRIALS` trials on a side it is "cannot
tell", and neither is ever a slowdown.
"""

from __future__ import annotations

from dataclasses import dataclass

from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group, Key, group, ratio
from rpcarena.errors import UsageError
from rpcarena.results import Results

COMPARED = ("median", "p99")


@dataclass(frozen=True)
class Change:
    """B/A of one statistic over trials; `before_us`/`after_us` are each side's geometric mean of its
    trials' values (the single trial's value with one trial)."""

    statistic: str
    before_us: float
    after_us: float
    ratio: stats.Ratio

    @property
    def significant(self) -> bool:
        return self.ratio.significant

    @property
    def judged(self) -> bool:
        """Enough trials on both sides to say whether it changed."""
        return self.ratio.judged

    def slower_beyond(self, threshold: float) -> bool:
        """A significant slowdown whose estimate exceeds the threshold (0.05 = B/A above 1.05)."""
        return self.ratio.above and self.ratio.estimate > 1 + threshold

    @property
    def verdict(self) -> str:
        """'slower', 'faster', 'not significant', or stats.CANNOT_TELL."""
        if not self.judged:
            return stats.CANNOT_TELL
        return "slower" if self.ratio.above else "faster" if self.ratio.below else "not significant"

    def describe(self) -> str:
        """'1.21x [1.10, 1.33] slower', '0.98x [0.90, 1.07] not significant', '1.21x cannot tell: ...'."""
        interval = self.ratio.interval
        bounds = f" [{interval.low:.2f}, {interval.high:.2f}]" if interval else ""
        return f"{self.ratio.estimate:.2f}x{bounds} {self.verdict}"


@dataclass(frozen=True)
class Row:
    key: Key
    changes: tuple[Change, ...]
    trials: tuple[int, int]  # A's, B's

    @property
    def label(self) -> str:
        contender, client, workload, clients = self.key
        return f"{contender}<-{client} {workload} x{clients}"

    def change(self, statistic: str) -> Change:
        return next(c for c in self.changes if c.statistic == statistic)


@dataclass(frozen=True)
class Comparison:
    rows: tuple[Row, ...]
    only_in_a: tuple[Key, ...]
    only_in_b: tuple[Key, ...]

    def slowdowns(self, threshold: float, statistic: str = "median") -> list[Row]:
        """Rows significantly slower by more than the threshold; a row that cannot be judged is not one."""
        return [r for r in self.rows if r.change(statistic).slower_beyond(threshold)]

    def unjudged(self) -> list[Row]:
        """Rows with fewer than stats.MIN_TRIALS trials on a side: no verdict either way."""
        return [r for r in self.rows if not all(c.judged for c in r.changes)]


def _change(a: Group, b: Group, statistic: str) -> Change:
    found = ratio(b, a, statistic, stats.RUN_TO_RUN)
    before, after = a.across_trials(statistic), b.across_trials(statistic)
    if found is None or before is None or after is None:  # a real clock never gives every call zero µs
        raise UsageError(f"{a.label} {a.workload}: every {statistic} is zero; the document is damaged")
    return Change(statistic, before, after, found)


def compare(a: Results, b: Results, trimmed: bool = False) -> Comparison:
    """Every cell present in both documents, compared; the others listed. No common cell is an error."""
    left = {g.key: g for g in group(a.cells, trimmed) if g.has_samples}
    right = {g.key: g for g in group(b.cells, trimmed) if g.has_samples}
    common = [k for k in left if k in right]
    if not common:
        raise UsageError(f"{a.path or 'A'} and {b.path or 'B'} have no measured cell in common: compare two "
                         "runs of the same --contender, --client, --workload and --clients")
    rows = tuple(Row(k, tuple(_change(left[k], right[k], s) for s in COMPARED),
                     (len(left[k].trials), len(right[k].trials))) for k in common)
    return Comparison(rows, tuple(k for k in left if k not in right), tuple(k for k in right if k not in left))

