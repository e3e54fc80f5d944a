"""Statistics: trimming, ratios over trials, instability warnings (no measured duration asserted)."""

from __future__ import annotations

import numpy as np
import pytest

import rpcarena
from rpcarena.analysis import groups, stability, stats
from rpcarena.analysis.groups import group
from rpcarena.results import Cell
from tests.helpers import FIXTURE


@pytest.fixture(scope="module")
def measured():
    return rpcarena.load(FIXTURE)


def test_trim_drops_below_p2_and_above_p98():
    values = np.arange(1, 1001, dtype=float)
    kept = stats.trim(values)
    assert kept.min() >= np.percentile(values, 2) and kept.max() <= np.percentile(values, 98)
    assert 950 <= kept.size <= 962


def test_group_pools_trials_of_a_real_run(measured):
    groups = group(measured.cells)
    assert len(groups) == 4  # 2 contenders x 2 concurrency levels, 2 trials each
    assert all(len(g.cells) == 2 and g.calls == 600 and g.samples.size == 600 for g in groups)


def _cell(**changes) -> Cell:
    base = dict(contender="x", client="py", workload="w", method="M", clients=1, calls=20_000, wall_s=1.0,
                placement={"client_cpus": [1]}, drift={"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                                                       "after": {"loadavg_1m": 0.2, "cpu_mhz": 2000.0}})
    return Cell(**{**base, **changes})


@pytest.mark.parametrize("changes, expected", [
    ({"calls": 50}, "only 50 calls"),
    ({"calls": 500}, "fewer than 10 lie beyond p99, p99.9, so they are not supported; use --calls 10,000"),
    ({"calls": 5000}, "fewer than 10 lie beyond p99.9, so it is not supported"),
    ({"errors": {"timeout": 3}}, "3 failed calls (timeout 3)"),
    ({"client_cpu_user_s": 0.8, "client_cpu_sys_s": 0.15}, "the client, not the server, may be the bottleneck"),
    # a Python client's one process runs on one CPU at a time, whatever CPUs it may use
    ({"client_cpu_user_s": 0.85, "client_cpu_sys_s": 0.1, "client_processes": 1, "placement": {"client_cpus": [0, 1]}},
     "client used 95% of the 1 CPU(s) it can use"),
    ({"contention": {"phase_s": 1.0, "server_waited_s": 0.3, "others_cpu_s": 0.9}},
     "other load: processes outside the run ran 0.90 CPUs beside the cell and the server waited for a CPU up to 30%"),
    ({"contention": {"phase_s": 1.0, "server_waited_s": 0.0, "others_cpu_s": 0.5}}, "outside the run ran 0.50 CPUs"),
    ({"contention": {"phase_s": 1.0, "server_waited_s": 0.4, "others_cpu_s": 0.1}}, "waited for a CPU up to 10%"),
    ({"drift": {"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                "after": {"loadavg_1m": 0.1, "cpu_mhz": 2400.0}}}, "CPU clock moved"),
])
def test_each_instability_is_said(changes, expected):
    said = stability.warnings(group([_cell(**changes)])[0], cpus=2)
    assert any(expected in text for text in said), said


def test_a_quiet_cell_has_no_warning():
    assert stability.warnings(group([_cell()])[0], cpus=2) == []
    quiet = {"phase_s": 1.0, "server_waited_s": 0.01, "others_cpu_s": 0.05}
    assert stability.warnings(group([_cell(contention=quiet)])[0], cpus=2) == []


def test_a_server_waiting_behind_its_own_threads_is_not_other_load():
    """A Python server's threads queue behind one another (and the GIL): with nothing else running,
    its run-queue wait is the cell's own, however long."""
    own = {"phase_s": 1.0, "server_waited_s": 0.45, "others_cpu_s": 0.02}
    assert stability.warnings(group([_cell(contention=own)])[0], cpus=2) == []


def test_a_busy_load_average_alone_is_not_other_load():
    """The 1-minute load average trails a burst by minutes: it says nothing of the phase itself."""
    busy = {"before": {"loadavg_1m": 9.0, "cpu_mhz": 2000.0}, "after": {"loadavg_1m": 12.0, "cpu_mhz": 2000.0}}
    assert stability.warnings(group([_cell(drift=busy)])[0], cpus=2) == []


def test_trial_ratio_is_the_ratio_of_geometric_means_with_welchs_interval():
    a, b = [100.0, 102.0, 98.0], [110.0, 112.2, 107.8]  # b = 1.1 a, trial by trial
    found = stats.trial_ratio(b, a)
    assert found.estimate == pytest.approx(1.1) and found.trials == (3, 3)
    assert found.above and not found.below and found.interval.low > 1 > 1 / found.interval.high
    assert found.text().startswith("1.10x [")


def test_trial_ratio_of_identical_trials_is_not_significant():
    values = [100.0, 120.0, 90.0, 105.0]
    found = stats.trial_ratio(values, list(reversed(values)))
    assert found.estimate == pytest.approx(1.0) and found.judged and not found.significant


def test_fewer_than_three_trials_a_side_give_a_ratio_and_no_verdict():
    found = stats.trial_ratio([200.0, 201.0], [100.0, 101.0, 99.0])
    assert found.estimate == pytest.approx(2.0, rel=0.01) and found.interval is None
    assert not found.judged and not found.above and not found.significant
    assert stats.CANNOT_TELL in found.text() and "2 and 3 trials" in found.text()


def test_trial_ratio_needs_positive_values():
    with pytest.raises(ValueError, match="positive"):
        stats.trial_ratio([0.0, 1.0, 2.0], [1.0, 1.0, 1.0])


def test_t_quantiles_round_the_degrees_of_freedom_down():
    assert stats.t975(1) == pytest.approx(12.706) and stats.t975(2.9) == pytest.approx(4.303)
    assert stats.t975(0.5) == stats.t975(1) and stats.t975(10_000) == pytest.approx(1.980)


def test_groups_compare_per_trial_medians_and_cpu(measured):
    g = group(measured.cells)[0]
    assert len(g.per_trial("median")) == 2 and all(v > 0 for v in g.per_trial("cpu_us_per_call"))
    assert g.across_trials("median") == pytest.approx(np.sqrt(np.prod(g.per_trial("median"))))
    same = groups.ratio(g, g, "median")
    assert same.estimate == pytest.approx(1.0) and not same.judged  # two trials: too few


def test_a_slowed_cell_keeps_its_calls_and_scales_every_latency(measured):
    cell = measured.cells[0]
    slow = cell.slowed(1.1)
    assert slow.latency["count"] == cell.latency["count"] and slow.calls == cell.calls
    assert slow.latency["p50_us"] == pytest.approx(1.1 * cell.latency["p50_us"], rel=0.01)
    assert [ns for _, ns in slow.samples_ns] == [round(1.1 * ns) for _, ns in cell.samples_ns]


def test_the_detectable_change_follows_the_spread_of_trials_and_more_trials_narrow_it():
    noisy = [float(v) for v in 100 * np.exp([-0.15, 0.1, 0.0, -0.08, 0.13])]  # trials differ by 12%
    calm = [float(v) for v in 100 * np.exp([-0.01, 0.01, 0.0, 0.005, -0.005])]  # by 1%
    wide, narrow = stats.trial_ratio(noisy, noisy[1:] + noisy[:1]), stats.trial_ratio(calm, calm[1:] + calm[:1])
    assert wide.detectable() > 1.2 and 1.0 < narrow.detectable() < 1.05
    sd = stats.trial_spread(wide)
    assert sd == pytest.approx(np.std(np.log(noisy), ddof=1), rel=0.01)  # one trial's SD, both sides alike
    needed = stats.trials_needed(sd, 0.10)
    assert needed > 5 and stats.trials_needed(0.01, 0.10) == stats.MIN_TRIALS

    def reach(n: int) -> float:  # the change n trials a side catch 4 times in 5
        return float((stats.t975(2 * n - 2) + 0.88) * sd * np.sqrt(2 / n))

    assert reach(needed) <= np.log(1.1) < reach(needed - 1)
    assert stats.trial_ratio([100.0, 101.0], [100.0, 101.0, 99.0]).detectable() is None


def test_separate_runs_widen_the_interval_by_what_their_trials_cannot_show():
    a = [100.0, 100.5, 99.5, 100.2, 99.8]
    b = [v * 1.03 for v in a]  # 3% slower, trials that agree to half a percent
    within, apart = stats.trial_ratio(b, a), stats.trial_ratio(b, a, stats.RUN_TO_RUN)
    assert within.above and not apart.significant and apart.between == stats.RUN_TO_RUN
    assert apart.interval.low < within.interval.low < within.interval.high < apart.interval.high
    assert stats.trial_spread(apart) == pytest.approx(stats.trial_spread(within), rel=1e-6)  # still one trial's SD
    assert stats.trials_needed(0.005, 0.03, stats.RUN_TO_RUN) is None  # runs alone differ too much for 3%
    assert stats.MIN_TRIALS <= stats.trials_needed(0.005, 0.10, stats.RUN_TO_RUN) <= 5
