"""A statistic's trend across intervals: real only with enough intervals and growth beyond the noise."""

from __future__ import annotations

import numpy as np

from rpcarena.record import trend

RNG = np.random.default_rng(3)


def test_a_steady_growth_is_real_and_its_interval_holds_the_slope():
    times = np.arange(60) * 10.0  # ten minutes of 10 s intervals
    values = 100.0 + 5.0 * times / 60.0 + RNG.normal(0, 2.0, times.size)  # +5 a minute, noise 2
    fit = trend.fit(times, values)
    assert fit is not None and fit.real and fit.points == 60
    assert fit.low < 5.0 < fit.high and fit.high - fit.low < 1.0
    assert fit.said("µs").startswith("+5") and "/min (±" in fit.said("µs")


def test_noise_about_a_level_is_flat():
    times = np.arange(60) * 10.0
    fit = trend.fit(times, 100.0 + RNG.normal(0, 20.0, times.size))
    assert fit is not None and not fit.real and fit.said("µs") == "flat"


def test_a_slope_within_the_interval_to_interval_noise_is_flat_even_when_significant():
    times = np.arange(600) * 1.0  # many points make a tiny slope significant; it is still lost in the noise
    values = 100.0 + 0.5 * times / 60.0 + RNG.normal(0, 10.0, times.size)
    fit = trend.fit(times, values)
    assert fit is not None and fit.low > 0 and not fit.real


def test_a_short_run_says_nothing_however_steep():
    assert trend.fit([0.5, 1.5, 2.5, 3.5, 4.5], [1, 2, 3, 4, 5]) is None
    assert trend.fit([0.5 + k for k in range(8)], [None, None, 3, 4, None, 6, 7, 8]) is None


def test_missing_points_are_left_out_not_read_as_zero():
    fit = trend.fit([k * 60.0 for k in range(8)], [10, None, 12, 13, None, 15, 16, 17.5])
    assert fit is not None and fit.points == 6 and fit.real and abs(fit.per_min - 1.0) < 0.2


def test_a_smooth_but_small_change_is_flat():
    """A heap settling (36.0 -> 36.7 MB over a 10-minute soak of grpc-go): far above its noise, 2% of its level."""
    times = np.arange(600) * 1.0
    fit = trend.fit(times, 36.0e6 + 0.7e6 * times / 600 + RNG.normal(0, 2e3, times.size))
    assert fit is not None and fit.low > 0 and fit.change > 100 * fit.noise and not fit.real
