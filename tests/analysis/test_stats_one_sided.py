"""The tests behind a claim's verdict: one-sided p-values at any bound, a ratio of two ratios, Holm."""

from __future__ import annotations

import pytest

from rpcarena.analysis import stats

SLOWER = stats.trial_ratio([2.0, 2.1, 1.9], [1.0, 1.05, 0.95])


def test_one_sided_p_is_the_interval_edge_against_any_bound():
    low, high = SLOWER.interval.low, SLOWER.interval.high
    assert stats.one_sided(SLOWER, low, above=True) == pytest.approx(stats.ONE_SIDED, abs=1e-4)
    assert stats.one_sided(SLOWER, high, above=False) == pytest.approx(stats.ONE_SIDED, abs=1e-4)
    assert stats.one_sided(SLOWER, 1.0, above=True) < 0.001 < 0.999 < stats.one_sided(SLOWER, 1.0, above=False)
    assert stats.one_sided(SLOWER, low * 0.99, above=True) < stats.ONE_SIDED < stats.one_sided(SLOWER, low * 1.01,
                                                                                                 above=True)
    assert stats.one_sided(stats.trial_ratio([2.0, 2.0], [1.0, 1.0]), 1.0, above=True) is None


def test_a_ratio_of_ratios_adds_the_variances():
    same = stats.quotient(SLOWER, SLOWER)
    assert same.estimate == pytest.approx(1.0) and same.interval.low < 1 < same.interval.high
    assert same.spread == pytest.approx(SLOWER.spread * 2 ** 0.5)
    halved = stats.quotient(SLOWER, stats.trial_ratio([1.0, 1.05, 0.95], [1.0, 1.05, 0.95]))
    assert halved.estimate == pytest.approx(2.0) and halved.above
    assert stats.quotient(SLOWER, stats.trial_ratio([1.0], [1.0])).interval is None


def test_holm_adjusts_step_down_and_never_lowers_a_later_p():
    adjusted = stats.holm_adjusted({"a": 0.001, "b": 0.04, "c": 0.5, "d": 0.012})
    assert adjusted == pytest.approx({"a": 0.004, "d": 0.036, "b": 0.08, "c": 0.5})
    assert stats.holm_adjusted({"only": 0.02}) == {"only": 0.02}
    assert stats.holm_adjusted({}) == {}
