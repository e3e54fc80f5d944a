"""Compare two results documents cell by cell, like benchstat or pyperf compare_to.

For each (contender, client, workload, clients) present in both, the change of the
median and p99 from A to B with a bootstrap interval. A change whose interval
spans 0 is "not significant", and is said so.
"""

from __future__ import annotations

from dataclasses import dataclass

from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group, Key, group
from rpcarena.errors import UsageError
from rpcarena.results import Results

COMPARED = ("median", "p99")


@dataclass(frozen=True)
class Change:
    """Relative change B/A - 1 of one statistic, with its interval."""

    statistic: str
    before_us: float
    after_us: float
    change: stats.Interval

    @property
    def significant(self) -> bool:
        return self.change.excludes(0.0)

    def slower_beyond(self, threshold: float) -> bool:
        """A significant slowdown whose estimate exceeds the threshold (0.05 = 5%)."""
        return self.significant and self.change.estimate > threshold

    def describe(self) -> str:
        c = self.change
        text = f"{c.estimate:+.1%} [{c.low:+.1%}, {c.high:+.1%}]"
        return text if self.significant else f"{text} not significant"


@dataclass(frozen=True)
class Row:
    key: Key
    changes: tuple[Change, ...]

    @property
    def label(self) -> str:
        contender, client, workload, clients = self.key
        return f"{contender}<-{client} {workload} x{clients}"


@dataclass(frozen=True)
class Comparison:
    rows: tuple[Row, ...]
    only_in_a: tuple[Key, ...]
    only_in_b: tuple[Key, ...]

    def slowdowns(self, threshold: float, statistic: str = "median") -> list[Row]:
        return [r for r in self.rows if any(c.statistic == statistic and c.slower_beyond(threshold)
                                            for c in r.changes)]


def _change(a: Group, b: Group, statistic: str) -> Change:
    ratio = stats.ratio(b.bootstrap(), a.bootstrap(), statistic)
    return Change(statistic, a.bootstrap().estimates[statistic], b.bootstrap().estimates[statistic],
                  ratio.scaled(1.0, -1.0))


def compare(a: Results, b: Results, trimmed: bool = False) -> Comparison:
    """Every cell present in both documents, compared; the others listed."""
    left = {g.key: g for g in group(a.cells, trimmed) if g.has_samples}
    right = {g.key: g for g in group(b.cells, trimmed) if g.has_samples}
    rows = tuple(Row(k, tuple(_change(left[k], right[k], s) for s in COMPARED)) for k in left if k in right)
    return Comparison(rows, tuple(k for k in left if k not in right), tuple(k for k in right if k not in left))


def parse_threshold(text: str) -> float:
    """'5%' or '0.05' -> 0.05."""
    try:
        value = float(text[:-1]) / 100 if text.strip().endswith("%") else float(text)
    except ValueError:
        raise UsageError(f"bad --fail-if-slower {text!r}: write a percentage such as 5%") from None
    if value < 0:
        raise UsageError(f"bad --fail-if-slower {text!r}: give zero or a positive percentage")
    return value
