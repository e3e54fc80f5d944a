"""Statistics from raw samples: outlier trimming and ratios over trials.

Percentiles, mean, SD and CV of a single cell come from its HdrHistogram
(`Cell.latency`); the bounded raw sample each cell keeps gives the per-trial
statistics and the p2/p98 trim usp2018 applied.

Whether two systems (or two runs) differ is a question about trials, not calls:
calls of one trial share its server, its CPUs and the machine's load at the
time, so thousands of them say nothing about the next run. `trial_ratio` takes
one value per trial on each side (each trial's median, say) and gives the ratio
with Welch's t interval on the logarithms, as pyperf's compare_to tests the
values of its runs. With fewer than MIN_TRIALS trials on a side it gives the
ratio alone: no interval, never "significant". (A percentile bootstrap over 3 to
5 trials is too narrow: it can draw only a few distinct sets of trials, and its
spread shrinks by (K-1)/K; benchmarks/significance.py measures both on real runs.)
`one_sided` is the test behind each edge of that interval, against any bound (1, a
seed's 2x, the edges of a band or margin), and `holm_adjusted` corrects a family of
them (suites.family).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
TRIM_PERCENTILES = (2.0, 98.0)
TRIM_LABEL = "trimmed: calls below p2 and above p98 dropped (as the usp2018 seed did)"
STATISTICS = ("median", "p99", "mean")
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
    """A point estimate and its 95% confidence interval."""

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


ONE_SIDED = (1 - CONFIDENCE) / 2  # each edge of the 95% interval is a one-sided test at 2.5%


def _table_df(df: float) -> int:
    """The degrees of freedom `t975` reads (rounded down to a row of its table): the p-values of
    `one_sided` use them too, so p < ONE_SIDED exactly when the interval's edge lies past the bound."""
    return max(k for k in _T975 if k <= max(df, 1.0))


def _upper_tail(t: float, df: int) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom (no scipy: the density integrated from 0 to
    |t| by the trapezoid rule, 4,000 steps)."""
    x = np.linspace(0.0, abs(t), 4001)
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    density = scale * (1 + x * x / df) ** (-(df + 1) / 2)
    half = float(np.sum((density[1:] + density[:-1]) * np.diff(x))) / 2
    tail = min(max(0.5 - half, 0.0), 0.5)
    return tail if t >= 0 else 1.0 - tail


def one_sided(ratio: Ratio, bound: float, above: bool) -> float | None:
    """The p-value of Welch's t on the log ratio for 'the ratio lies above `bound`' (`above`) or 'below
    it': the test behind one edge of `Ratio.interval` (p < ONE_SIDED exactly when the interval lies wholly
    on that side of the bound). None without an interval."""
    if ratio.spread is None or ratio.df is None:
        return None
    distance = math.log(ratio.estimate) - math.log(bound)
    distance = distance if above else -distance
    if ratio.spread == 0:
        return 0.0 if distance > 0 else 1.0
    return _upper_tail(distance / ratio.spread, _table_df(ratio.df))


def quotient(a: Ratio, b: Ratio) -> Ratio:
    """a / b of two ratios over independent trials (how much a lead changed between two settings): the
    log ratios subtract, their variances add, and the degrees of freedom follow Welch-Satterthwaite."""
    estimate = a.estimate / b.estimate
    trials = (min(a.trials), min(b.trials))
    if a.spread is None or b.spread is None or a.df is None or b.df is None:
        return Ratio(estimate, None, trials)
    va, vb = a.spread ** 2, b.spread ** 2
    se = math.sqrt(va + vb)
    sampled = va ** 2 / a.df + vb ** 2 / b.df
    df = (va + vb) ** 2 / sampled if sampled > 0 else a.df + b.df
    half = t975(df) * se
    return Ratio(estimate, Interval(estimate, estimate * math.exp(-half), estimate * math.exp(half)), trials, se, df)


def holm_adjusted(p_values: dict[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values over a family: the smallest times m, the next times m-1, ...,
    each at least the one before (so a name is significant at alpha exactly when Holm's procedure at
    alpha keeps it)."""
    adjusted: dict[str, float] = {}
    ordered, most = sorted(p_values.items(), key=lambda item: item[1]), 0.0
    for i, (name, p) in enumerate(ordered):
        most = max(most, min(1.0, (len(ordered) - i) * p))
        adjusted[name] = most
    return adjusted
