"""Latency objectives such as 'p99<5ms' or 'p99.9<=20ms,mean<1ms', checked against a cell."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rpcarena.config import parse_duration
from rpcarena.errors import UsageError
from rpcarena.results import Cell

_TERM = re.compile(r"\s*(p\d+(?:\.\d+)?|mean|max)\s*(<=|<)\s*(\S+?)\s*")
_LIMIT = re.compile(r"[0-9]*\.?[0-9]+\s*(?:us|ms|s|m|min)")
_EXAMPLE = "write e.g. 'p99<5ms' or 'p99.9<=20ms,mean<1ms'"


@dataclass(frozen=True)
class Objective:
    statistic: str  # "p99", "p99.9", "mean", "max"
    inclusive: bool
    limit_us: float

    def met_by(self, cell: Cell) -> bool:
        value = self.value(cell)
        return value <= self.limit_us if self.inclusive else value < self.limit_us

    def value(self, cell: Cell) -> float:
        if self.statistic == "mean":
            return float(cell.histogram.get_mean_value()) / 1e3
        if self.statistic == "max":
            return float(cell.histogram.get_max_value()) / 1e3
        return float(cell.histogram.get_value_at_percentile(float(self.statistic[1:]))) / 1e3

    def __str__(self) -> str:
        return f"{self.statistic}{'<=' if self.inclusive else '<'}{self.limit_us:g}us"


def parse(text: str) -> list[Objective]:
    """Objectives from 'p99<5ms,mean<1ms'; a malformed one is a one-line usage error."""
    return [objective(part) for part in text.split(",")]


def objective(part: str, option: str = "--slo") -> Objective:
    """One term: a percentile from p0 (exclusive) to p100, mean or max; a positive limit with its unit
    (a bare '5' could be seconds or milliseconds: an objective a typo loosens a thousandfold)."""
    match = _TERM.fullmatch(part)
    if not match:
        raise UsageError(f"bad {option} {part.strip()!r}: {_EXAMPLE}")
    statistic, op, limit = match.groups()
    if statistic.startswith("p") and not 0 < float(statistic[1:]) <= 100:
        raise UsageError(f"bad {option} {part.strip()!r}: a percentile lies above p0 and at most p100: {_EXAMPLE}")
    if not _LIMIT.fullmatch(limit):
        raise UsageError(f"bad {option} {part.strip()!r}: give the limit a positive duration with its unit "
                         f"(us, ms, s): {_EXAMPLE}")
    seconds = parse_duration(limit, f"{option} limit") or 0.0
    if seconds <= 0:
        raise UsageError(f"bad {option} {part.strip()!r}: a limit of zero no call meets: {_EXAMPLE}")
    return Objective(statistic, op == "<=", seconds * 1e6)


def verdict(cell: Cell, objectives: list[Objective], max_error_ratio: float = 0.0) -> bool:
    """A cell meets the objectives when it is ok, its errors are within bounds, and every term holds."""
    if cell.status != "ok" or cell.calls == 0:
        return False
    if cell.error_count > max_error_ratio * (cell.calls + cell.error_count):
        return False
    return all(o.met_by(cell) for o in objectives)
