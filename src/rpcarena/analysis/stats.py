"""Statistics from raw samples: outlier trimming and bootstrap confidence intervals.

Percentiles, mean, SD and CV of a single cell come from its HdrHistogram
(`Cell.latency`). What a histogram cannot give is uncertainty; that comes from
the bounded raw sample each cell keeps. With several trials (`--repeat K`) the
bootstrap is hierarchical: each replicate draws K trials with replacement, then
calls within them, so the interval covers trial-to-trial variation (a fresh
server each time) and not only call-to-call noise.
"""

from __future__ import annotations

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


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (SD / mean) of a few numbers, e.g. the medians of K trials."""
    array = np.asarray(values, dtype=float)
    if array.size < 2 or array.mean() == 0:
        return None
    return float(array.std(ddof=1) / array.mean())
