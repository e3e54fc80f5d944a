"""Statistics: trimming, bootstrap intervals, instability warnings (no measured duration asserted)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rpcarena
from rpcarena.analysis import stability, stats
from rpcarena.analysis.groups import group
from rpcarena.results import Cell

FIXTURE = Path(__file__).parent / "fixtures" / "results_usp_int32_small.json"


@pytest.fixture(scope="module")
def measured():
    return rpcarena.load(FIXTURE)


def test_trim_drops_below_p2_and_above_p98():
    values = np.arange(1, 1001, dtype=float)
    kept = stats.trim(values)
    assert kept.min() >= np.percentile(values, 2) and kept.max() <= np.percentile(values, 98)
    assert 950 <= kept.size <= 962


def test_interval_brackets_the_estimate_and_is_reproducible():
    values = np.random.default_rng(1).lognormal(5, 0.5, 2000)
    a, b = stats.Bootstrap([values]), stats.Bootstrap([values])
    for name in stats.STATISTICS:
        ci = a.interval(name)
        assert ci.low <= ci.estimate <= ci.high
        assert ci == b.interval(name)


def test_trials_widen_the_interval_when_trials_disagree():
    rng = np.random.default_rng(2)
    same = [rng.normal(100, 5, 500) for _ in range(3)]
    shifted = [rng.normal(100 + 20 * k, 5, 500) for k in range(3)]
    narrow, wide = stats.Bootstrap(same).interval("median"), stats.Bootstrap(shifted).interval("median")
    assert (wide.high - wide.low) > 3 * (narrow.high - narrow.low)


def test_ratio_of_a_fixed_delay_excludes_one(measured):
    base = measured.cells[0]
    values = stats.samples_us(base.samples_ns)
    slower = stats.Bootstrap([values + np.median(values)])
    ci = stats.ratio(slower, stats.Bootstrap([values]))
    assert ci.excludes(1.0) and ci.estimate == pytest.approx(2.0)


def test_group_pools_trials_of_a_real_run(measured):
    groups = group(measured.cells)
    assert len(groups) == 4  # 2 contenders x 2 concurrency levels, 2 trials each
    assert all(len(g.cells) == 2 and g.calls == 600 and g.samples.size == 600 for g in groups)


def _cell(**changes) -> Cell:
    base = dict(contender="x", client="py", workload="w", method="M", clients=1, calls=5000, wall_s=1.0,
                placement={"client_cpus": [1]}, drift={"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                                                       "after": {"loadavg_1m": 0.2, "cpu_mhz": 2000.0}})
    return Cell(**{**base, **changes})


@pytest.mark.parametrize("changes, expected", [
    ({"calls": 50}, "only 50 calls"),
    ({"calls": 500}, "p99 rests on fewer than 10 calls"),
    ({"errors": {"timeout": 3}}, "3 failed calls (timeout 3)"),
    ({"client_cpu_user_s": 0.8, "client_cpu_sys_s": 0.15}, "client may be the bottleneck"),
    ({"drift": {"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                "after": {"loadavg_1m": 1.9, "cpu_mhz": 2400.0}}}, "load average moved"),
    ({"drift": {"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                "after": {"loadavg_1m": 0.1, "cpu_mhz": 2400.0}}}, "CPU clock moved"),
])
def test_each_instability_is_said(changes, expected):
    said = stability.warnings(group([_cell(**changes)])[0], cpus=2)
    assert any(expected in text for text in said), said


def test_a_quiet_cell_has_no_warning():
    assert stability.warnings(group([_cell()])[0], cpus=2) == []
