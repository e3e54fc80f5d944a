"""A statistic's trend across a cell's intervals: a least-squares line, its slope per minute with a
95% interval, or "flat".

A soak that leaks shows as a slope, not as a difference of thirds: p50, p99 and the server's
resident set are fitted against time, one point per interval. A trend is said to be real only
when there are at least MIN_INTERVALS points, the slope's interval leaves out zero, and the
fitted change over the run exceeds GROWTH_OVER_NOISE times the points' scatter about the line
(the interval-to-interval noise) and MIN_CHANGE_SHARE of its level: a short run, a slope lost in
its own noise, or a change too small to matter is "flat".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_INTERVALS = 6
GROWTH_OVER_NOISE = 2.0
# and by this share of its level at least: a 10-minute soak of grpc-go grew its RSS from 36.0 to
# 36.7 MB, a smooth line far above its noise, yet a heap settling, not a leak worth a warning
MIN_CHANGE_SHARE = 0.10
# Student's t at 97.5% by degrees of freedom (n - 2); 1.96 beyond the table
_T975 = {4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131,
         20: 2.086, 30: 2.042, 60: 2.000, 120: 1.980}


@dataclass(frozen=True)
class Fit:
    """A line through (time, value) points: the slope per minute, its 95% interval, and whether it is real."""

    per_min: float
    low: float
    high: float
    points: int
    change: float  # the fitted change from the first point to the last
    noise: float  # the points' standard deviation about the line
    level: float  # the points' mean

    @property
    def real(self) -> bool:
        return (self.points >= MIN_INTERVALS and (self.low > 0 or self.high < 0)
                and abs(self.change) > GROWTH_OVER_NOISE * self.noise
                and abs(self.change) >= MIN_CHANGE_SHARE * abs(self.level))

    def said(self, unit: str, scale: float = 1.0) -> str:
        """'+12.0 µs/min (±3.1)' for a real trend, else 'flat'."""
        if not self.real:
            return "flat"
        return f"{self.per_min * scale:+.3g} {unit}/min (±{(self.high - self.per_min) * scale:.2g})"

    def to_json(self) -> dict[str, float | int | bool]:
        return {"per_min": self.per_min, "low": self.low, "high": self.high, "points": self.points,
                "change": self.change, "noise": self.noise, "level": self.level, "real": self.real}


def fit(times_s: Sequence[float], values: Sequence[float | None]) -> Fit | None:
    """The least-squares line of the points that have a value; None under MIN_INTERVALS of them."""
    pairs = [(t / 60.0, float(v)) for t, v in zip(times_s, values) if v is not None and math.isfinite(v)]
    if len(pairs) < MIN_INTERVALS:
        return None
    x, y = np.asarray(pairs).T
    sxx = float(np.sum((x - x.mean()) ** 2))
    if sxx <= 0:
        return None
    slope = float(np.sum((x - x.mean()) * (y - y.mean())) / sxx)
    residuals = y - (y.mean() + slope * (x - x.mean()))
    noise = float(math.sqrt(np.sum(residuals ** 2) / (len(pairs) - 2)))
    half = _t975(len(pairs) - 2) * noise / math.sqrt(sxx)
    return Fit(slope, slope - half, slope + half, len(pairs), slope * float(x.max() - x.min()), noise,
               float(y.mean()))


def _t975(df: int) -> float:
    known = [k for k in _T975 if k <= df]
    return _T975[max(known)] if df <= max(_T975) else 1.96
