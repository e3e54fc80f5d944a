"""Statistics from raw samples: outlier trimming, bootstrap intervals, and ratios over trials.

Percentiles, mean, SD and CV of a single cell come from its HdrHistogram
(`Cell.latency`). What a histogram cannot give is uncertainty; that comes from
the bounded raw sample each cell keeps. With several trials (`--repeat K`) the
bootstrap is hierarchical: each replicate draws K trials with replacement, then
calls within them, so the interval covers trial-to-trial variation (a fresh
server each time) and not only call-to-call noise.

Whether two systems (or two runs) differ is a question about trials, not calls:
calls of one trial share its server, its CPUs and the machine's load at the
time, so thousands of them say nothing about the next run. `trial_ratio` takes
one value per trial on each side (each trial's median, say) and gives the ratio
with Welch's t interval on the logarithms, as pyperf's compare_to tests the
values of its runs. With fewer than MIN_TRIALS trials on a side it gives the
ratio alone: no interval, never "significant". (A percentile bootstrap over 3 to
5 trials is too narrow: it can draw only a few distinct sets of trials, and its
spread shrinks by (K-1)/K; benchmarks/significance.py measures both on real runs.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 1000
TRIM_PERCENTILES = (2.0, 98.0)
TRIM_LABEL = "trimmed: calls below p2 and above p98 dropped (as the usp2018 seed did)"
STATISTICS = ("median", "p99", "mean")
_CHUNK_VALUES = 4_000_000  # bound the memory of one vectorised resampling step
MIN_TRIALS = 3  # fewer trials on a side cannot show how much the next run differs
# What two separate runs of one configuration differ by beyond what their trials show (SD of the
# log median, per run): the machine's state over a run, shared by its trials. benchmarks/
# significance.py measured 0-3.9% (tcp-raw, grpc-py, rest-warp over four sessions of a 2-vCPU VM
# at --pin same), 1.6% in root mean square; with it, no session called identical runs different
# more than 5% of the time.
RUN_TO_RUN = 0.016
CANNOT_TELL = f"cannot tell: run with --repeat {MIN_TRIALS} or more"
_T80 = 0.88  # Student's t at 80% near 10 degrees of freedom (0.94 at 4, 0.84 at infinity): power 80%
# Student's t, two-sided 95%, by degrees of freedom; a fractional df is rounded down (a wider interval).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
         10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def samples_us(samples_ns: Sequence[Sequence[int]]) -> np.ndarray:
    """Latencies in microseconds from a cell's [call index, latency ns] pairs."""
    if not samples_ns:
        return np.empty(0)
    latencies: np.ndarray = np.asarray(samples_ns, dtype=float)[:, 1] / 1e3
    return latencies


def trim(values: np.ndarray, percentiles: tuple[float, float] = TRIM_PERCENTILES) -> np.ndarray:
    """Values within [p_low, p_high]; the rest are outliers as the usp2018 seed defined them."""
    if values.size == 0:
        return values
    low, high = np.percentile(values, percentiles)
    kept: np.ndarray = values[(values >= low) & (values <= high)]
    return kept


@dataclass(frozen=True)
class Interval:
    """A point estimate and its percentile-bootstrap confidence interval."""

    estimate: float
    low: float
    high: float

    def excludes(self, value: float) -> bool:
        return not self.low <= value <= self.high

    def scaled(self, factor: float, offset: float = 0.0) -> Interval:
        return Interval(self.estimate * factor + offset, self.low * factor + offset, self.high * factor + offset)


def _statistics(values: np.ndarray) -> dict[str, np.ndarray | float]:
    """Each statistic along the last axis (a 1-D array gives scalars)."""
    median, p99 = np.percentile(values, [50.0, 99.0], axis=-1)
    return {"median": median, "p99": p99, "mean": values.mean(axis=-1)}


class Bootstrap:
    """Bootstrap replicates of median, p99 and mean for one group of trials."""

    def __init__(self, trials: Sequence[np.ndarray], resamples: int = RESAMPLES, seed: int = 0):
        self.trials = [np.asarray(t, dtype=float) for t in trials if len(t)]
        if not self.trials:
            raise ValueError("a bootstrap needs at least one non-empty trial")
        pooled = np.concatenate(self.trials)
        self.count = pooled.size
        self.estimates = {k: float(v) for k, v in _statistics(pooled).items()}
        self.replicates = self._resample(pooled, resamples, np.random.default_rng(seed))

    def _resample(self, pooled: np.ndarray, resamples: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        sizes = np.array([t.size for t in self.trials])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        chunk = max(1, _CHUNK_VALUES // pooled.size)
        parts: list[dict[str, Any]] = []
        for start in range(0, resamples, chunk):
            b = min(chunk, resamples - start)
            parts.append(_statistics(pooled[self._indices(rng, b, sizes, offsets)]))
        return {name: np.concatenate([p[name] for p in parts]) for name in STATISTICS}

    @staticmethod
    def _indices(rng: np.random.Generator, b: int, sizes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """b replicates of n indices: trials drawn with replacement, then calls within each."""
        k, n = sizes.size, int(sizes.sum())
        if k == 1:
            return rng.integers(0, n, (b, n))
        chosen = rng.integers(0, k, (b, k))
        trial = np.take_along_axis(chosen, rng.integers(0, k, (b, n)), axis=1)
        picked: np.ndarray = offsets[trial] + (rng.random((b, n)) * sizes[trial]).astype(np.int64)
        return picked

    def interval(self, statistic: str, confidence: float = CONFIDENCE) -> Interval:
        return _percentile_interval(self.estimates[statistic], self.replicates[statistic], confidence)


def _percentile_interval(estimate: float, replicates: np.ndarray, confidence: float) -> Interval:
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return Interval(float(estimate), float(low), float(high))


def ratio(numerator: Bootstrap, denominator: Bootstrap, statistic: str = "median",
          confidence: float = CONFIDENCE) -> Interval:
    """numerator / denominator of a statistic, with its interval (independent bootstraps)."""
    estimate = numerator.estimates[statistic] / denominator.estimates[statistic]
    replicates = numerator.replicates[statistic] / denominator.replicates[statistic]
    return _percentile_interval(estimate, replicates, confidence)


def t975(df: float) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom (or fewer: never narrower)."""
    return _T975[max(k for k in _T975 if k <= max(df, 1.0))]


@dataclass(frozen=True)
class Ratio:
    """numerator / denominator of a statistic measured in trials, with its 95% interval over trials.

    `interval` is None when a side has fewer than MIN_TRIALS trials: then the ratio is shown, and
    nothing is called significant either way."""

    estimate: float
    interval: Interval | None
    trials: tuple[int, int]  # numerator's, denominator's
    spread: float | None = None  # the standard error of the log ratio (None without an interval)
    df: float | None = None  # its degrees of freedom (Welch-Satterthwaite)
    between: float = 0.0  # the SD of log added per side for separate runs (`RUN_TO_RUN`), in `spread`

    @property
    def judged(self) -> bool:
        return self.interval is not None

    @property
    def above(self) -> bool:
        """Significantly above 1: the numerator's statistic is larger."""
        return self.interval is not None and self.interval.low > 1

    @property
    def below(self) -> bool:
        return self.interval is not None and self.interval.high < 1

    @property
    def significant(self) -> bool:
        return self.above or self.below

    def detectable(self) -> float | None:
        """The smallest change these trials would call significant 4 times in 5 (a power of 80%):
        1.21 means B/A above 1.21 or below 1/1.21. A "not significant" with a detectable 1.40 says
        little about a 10% change; None without an interval."""
        if self.spread is None or self.df is None:
            return None
        return 1 + _caught(self.spread, self.df)

    def text(self) -> str:
        """'1.82x [1.70, 1.95]', or the ratio and why there is no interval."""
        if self.interval is None:
            a, b = self.trials
            return f"{self.estimate:.2f}x ({a} and {b} trials: {CANNOT_TELL})"
        return f"{self.estimate:.2f}x [{self.interval.low:.2f}, {self.interval.high:.2f}]"


def trial_ratio(numerator: Sequence[float], denominator: Sequence[float], between: float = 0.0) -> Ratio:
    """numerator / denominator from one positive value per trial on each side.

    The estimate is the ratio of the geometric means; the interval is Welch's t on the
    logarithms (unequal spreads allowed), exponentiated. `between` is a spread of each side's
    whole run that its trials cannot show (`RUN_TO_RUN` for two separate runs; 0 within a run,
    whose interleaved trials share the machine's states alike); it adds to the variance, as
    known, without degrees of freedom of its own."""
    top, bottom = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if not (top.size and bottom.size and (top > 0).all() and (bottom > 0).all()):
        raise ValueError("a ratio over trials needs one positive value per trial on each side")
    a, b = np.log(top), np.log(bottom)
    diff, trials = float(a.mean() - b.mean()), (int(a.size), int(b.size))
    if min(trials) < MIN_TRIALS:
        return Ratio(math.exp(diff), None, trials)
    va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
    runs = 2 * between ** 2
    se = math.sqrt(va + vb + runs)
    sampled = va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)
    df = (va + vb + runs) ** 2 / sampled if sampled > 0 else a.size + b.size - 2.0
    half = t975(df) * se
    return Ratio(math.exp(diff), Interval(math.exp(diff), math.exp(diff - half), math.exp(diff + half)), trials,
                 se, df, between)


def trial_spread(ratio: Ratio) -> float | None:
    """One trial's SD of the log statistic behind a ratio over trials, both sides alike (0.12 = trials
    differ by about 12%), or None without an interval."""
    if ratio.spread is None:
        return None
    a, b = ratio.trials
    return math.sqrt(max(ratio.spread ** 2 - 2 * ratio.between ** 2, 0.0) / (1 / a + 1 / b))


def reach(sd: float, trials: int, between: float = 0.0) -> float:
    """The change (0.10 = 10%) that `trials` trials a side catch 4 times in 5 when one trial's log
    statistic has SD `sd` (`trial_spread`) and each run `between` more."""
    return _caught(math.sqrt(2 * sd ** 2 / trials + 2 * between ** 2), 2 * trials - 2)


def _caught(se: float, df: float) -> float:
    """The change a log ratio with standard error `se` and `df` degrees of freedom shows as
    significant at 95% four times in five."""
    return math.expm1((t975(df) + _T80) * se)


def trials_needed(sd: float, change: float, between: float = 0.0, most: int = 1000) -> int | None:
    """Trials a side for `reach` to come within `change`; None when no number of trials would (the
    runs alone differ too much), `most` when more would be needed."""
    if (1.96 + _T80) * math.sqrt(2) * between >= math.log1p(change):
        return None
    return next((n for n in range(MIN_TRIALS, most) if reach(sd, n, between) <= change), most)


def per_trial(trials: Sequence[np.ndarray], statistic: str) -> list[float]:
    """One value of a statistic ('median', 'p99', 'mean') per non-empty trial."""
    return [float(_statistics(np.asarray(t, dtype=float))[statistic]) for t in trials if len(t)]


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (SD / mean) of a few numbers, e.g. the medians of K trials."""
    array = np.asarray(values, dtype=float)
    if array.size < 2 or array.mean() == 0:
        return None
    return float(array.std(ddof=1) / array.mean())


def p_value(ratio: Ratio) -> float | None:
    """The two-sided p-value of Welch's t on the log ratio (the test behind `Ratio.interval`), for
    corrections over several ratios (`holm`); None without an interval."""
    if ratio.spread is None or ratio.df is None:
        return None
    if ratio.spread == 0:
        return 0.0 if ratio.estimate != 1 else 1.0
    t, df = abs(math.log(ratio.estimate)) / ratio.spread, ratio.df
    x = np.linspace(0.0, t, 4001)  # 1 - 2 * (Student's t density from 0 to t): no scipy needed
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    density = scale * (1 + x * x / df) ** (-(df + 1) / 2)
    inside = float(np.sum((density[1:] + density[:-1]) * np.diff(x)))  # twice the trapezoid rule
    return min(max(1.0 - inside, 0.0), 1.0)


def holm(p_values: dict[str, float], alpha: float = 1 - CONFIDENCE) -> set[str]:
    """The names whose p-value stays significant after Holm's step-down correction over all of them:
    the smallest against alpha/m, the next against alpha/(m-1), ..., stopping at the first that fails."""
    kept: set[str] = set()
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    for i, (name, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - i):
            break
        kept.add(name)
    return kept
