"""Self-diagnosis from constructed cells: each check fires on the shape it names, and only there."""

from __future__ import annotations

import numpy as np
import pytest

from rpcarena.analysis import stability
from rpcarena.analysis.groups import group
from rpcarena.record import hist
from rpcarena.results import Cell

CALLS = 20_000


def _cell(latencies_us, **changes) -> Cell:
    """A quiet cell whose sampled calls, in call order, took `latencies_us`."""
    samples = [[i, int(v * 1e3)] for i, v in enumerate(latencies_us)]
    base = dict(contender="x", client="py", workload="w", method="M", clients=1, calls=CALLS, wall_s=1.0,
                samples_ns=samples, placement={"client_cpus": [1], "server_cpus": [0]},
                drift={"before": {"loadavg_1m": 0.1, "cpu_mhz": 2000.0},
                       "after": {"loadavg_1m": 0.2, "cpu_mhz": 2000.0}})
    return Cell(**{**base, **changes})


def _said(cell: Cell) -> dict[str, str]:
    return {d.check: d.text for d in stability.diagnoses(group([cell])[0], cpus=2)}


RNG = np.random.default_rng(7)
ONE_MODE = RNG.lognormal(np.log(350), 0.5, 2000)  # a long tail, one mode


def test_a_long_tail_is_not_two_modes_nor_a_trend():
    assert _said(_cell(ONE_MODE)) == {}


def test_two_modes_are_said_with_where_they_are():
    rng = np.random.default_rng(1)
    latencies = np.concatenate([rng.lognormal(np.log(350), 0.1, 1400), rng.lognormal(np.log(2500), 0.2, 600)])
    rng.shuffle(latencies)
    text = _said(_cell(latencies))["bimodal"]
    assert "two modes" in text and "30% of calls in the slower" in text
    assert "µs" in text and "ms" in text


def test_a_small_bump_in_the_tail_is_not_a_second_mode():
    rng = np.random.default_rng(2)
    latencies = np.concatenate([rng.lognormal(np.log(350), 0.1, 1950), rng.lognormal(np.log(2500), 0.2, 50)])
    assert "bimodal" not in _said(_cell(latencies))


@pytest.mark.parametrize("fast_share, slow_us", [(0.85, 2500), (0.6, 560)])
def test_a_tail_mode_or_a_near_one_is_not_two_modes_that_matter(fast_share, slow_us):
    """15% of calls in a slow mode is a tail (the p99's), and a mode 1.6x slower is a cross-CPU
    wake-up: neither moves the median from one mode to the other."""
    rng = np.random.default_rng(4)
    fast = int(2000 * fast_share)
    latencies = np.concatenate([rng.lognormal(np.log(350), 0.05, fast),
                                rng.lognormal(np.log(slow_us), 0.05, 2000 - fast)])
    rng.shuffle(latencies)
    assert "bimodal" not in _said(_cell(latencies))


def _trials(medians_us) -> list[Cell]:
    """One quiet cell a trial, each the same long tail moved to its median."""
    cells = []
    for t, median in enumerate(medians_us):
        latencies = ONE_MODE * median / np.median(ONE_MODE)
        recorded = hist.new()
        hist.record_many(recorded, (int(v * 1e3) for v in latencies))
        cells.append(_cell(latencies, trial=t, latency_histogram=hist.encode(recorded)))
    return cells


@pytest.mark.parametrize("medians_us, said", [([100, 112, 95], False), ([100, 125, 98], False),
                                               ([100, 131, 99], True), ([200, 95, 100], True)])
def test_trials_differ_only_by_as_much_as_the_mechanisms_ranked(medians_us, said):
    diagnosed = {d.check: d.text for d in stability.diagnoses(group(_trials(medians_us))[0], cpus=2)}
    assert ("trial_spread" in diagnosed) == said, diagnosed
    if said:
        assert f"{max(medians_us) / min(medians_us):.2f}x" in diagnosed["trial_spread"]


@pytest.mark.parametrize("start, end, expected", [(500, 300, "faster over the measured phase"),
                                                  (300, 450, "slower over the measured phase")])
def test_a_trend_over_the_phase_is_said_with_its_direction(start, end, expected):
    rng = np.random.default_rng(3)
    latencies = np.linspace(start, end, 1500) * rng.lognormal(0, 0.1, 1500)
    text = _said(_cell(latencies))["trend"]
    assert expected in text and ("--warmup" in text if start > end else "--repeat" in text)


def test_the_trend_follows_the_call_index_not_the_order_kept():
    """The reservoir keeps samples in no particular order: the call index is the time."""
    latencies = np.linspace(500, 300, 1500)
    shuffled = [[i, int(v * 1e3)] for i, v in enumerate(latencies)][::-1]
    assert "trend" in _said(_cell([], samples_ns=shuffled))


def test_a_phase_too_short_to_have_a_trend_has_none():
    """60 ms of calls (the old default arena's fast cells) cannot show throttling or a growing heap."""
    latencies = np.linspace(500, 300, 1500)
    assert "trend" not in _said(_cell(latencies, wall_s=stability.TREND_MIN_PHASE_S / 16))


def test_calls_at_multiples_of_40_ms_with_tcp_nodelay_at_both_ends_are_not_nagle():
    """Across a slow link a large call's time is serialization at its rate: no delayed ACK."""
    stalled = np.full(200, 40_500.0)  # every call one delayed-ACK timer long
    rpyc = _cell(stalled, contender="rpyc", protocol="rpyc", tcp_nodelay={"client": False, "server": True})
    assert "rpyc-nodelay" in _said(rpyc)["delayed_ack"]
    server_off = _said(_cell(stalled, tcp_nodelay={"client": True, "server": False}))["delayed_ack"]
    assert "on the server's sockets" in server_off and "rpyc-nodelay" not in server_off
    assert "delayed_ack" not in _said(_cell(stalled, tcp_nodelay={"client": True, "server": True}))


def test_noise_without_a_trend_is_quiet():
    rng = np.random.default_rng(4)
    assert "trend" not in _said(_cell(rng.lognormal(np.log(300), 0.3, 90)))


def test_a_saturated_server_is_said():
    text = _said(_cell(ONE_MODE, server_cpu_s=0.97))["server_saturated"]
    assert "server used 97% of its 1 CPU(s)" in text and "fewer clients" in text


def test_a_busy_server_with_cpus_to_spare_is_not_saturated():
    assert "server_saturated" not in _said(_cell(ONE_MODE, server_cpu_s=0.97, placement={"server_cpus": [0, 1]}))


def test_server_saturation_falls_back_to_the_ticks():
    assert "server_saturated" in _said(_cell(ONE_MODE, server_cpu_user_s=0.6, server_cpu_sys_s=0.35))


@pytest.mark.parametrize("calls, percentile, ok", [(300, 99.9, False), (9_999, 99.9, False), (10_000, 99.9, True),
                                                   (999, 99.0, False), (1_000, 99.0, True), (20, 50.0, True)])
def test_which_percentiles_the_calls_support(calls, percentile, ok):
    assert stability.supported(calls, percentile) is ok


def test_p99_9_from_300_calls_is_not_supported():
    text = _said(_cell(ONE_MODE, calls=300))["unsupported_percentiles"]
    assert "p99.9" in text and "not supported" in text and "--calls 10,000" in text


def test_warnings_are_the_diagnoses_sentences():
    g = group([_cell(ONE_MODE, calls=300, server_cpu_s=0.97)])[0]
    assert stability.warnings(g, 2) == [d.text for d in stability.diagnoses(g, 2)]
    assert [d.check for d in stability.diagnoses(g, 2)] == ["unsupported_percentiles", "server_saturated"]


def _open_loop_cell(corrected_us: float, lag_us: float, **changes) -> Cell:
    """An open-loop cell whose every call took `corrected_us` from its due time, `lag_us` of it before its send."""
    corrected, lag = hist.new(), hist.new()
    corrected.record_value(int(corrected_us * 1e3), CALLS)
    lag.record_value(int(lag_us * 1e3), CALLS)
    return _cell(ONE_MODE, latency_histogram=hist.encode(corrected), schedule_lag_histogram=hist.encode(lag),
                 rate_per_s=1000.0, **changes)


def test_a_driver_that_fell_behind_is_said_with_how_far():
    (said,) = [d for d in stability.diagnoses(group([_open_loop_cell(900, 600)])[0], cpus=2)
               if d.kind == "schedule-lag"]
    assert "the driver, not the server, fell behind" in said.text and "600 µs" in said.text


@pytest.mark.parametrize("lag_us,changes", [
    (5, {}),  # on time: within noise
    (50, {}),  # 50 µs of 900: not a material share
    (600, {"server_cpu_s": 0.97}),  # a saturated server made the calls queue: server_saturated says so
])
def test_schedule_lag_is_not_said_when_the_driver_kept_up(lag_us, changes):
    assert "schedule_lag" not in _said(_open_loop_cell(900, lag_us, **changes))


def _soak(latency_us, rss_mb, interval_s: float = 10.0) -> Cell:
    """A quiet cell whose intervals took `latency_us` each (100 calls each) with the server at `rss_mb`."""
    from rpcarena.record import intervals

    entries, server = [], []
    for k, (us, mb) in enumerate(zip(latency_us, rss_mb)):
        h = hist.new()
        h.record_value(int(us * 1e3), 100)
        entries.append(intervals.entry(k * interval_s, h, {}))
        server.append({"start_s": k * interval_s, "rss_bytes": int(mb * 1e6), "wire_in_bytes": None,
                       "wire_out_bytes": None})
    return _cell(ONE_MODE, intervals=entries, server_intervals=server, interval_s=interval_s,
                 wall_s=interval_s * len(entries))


def test_a_server_growing_through_a_soak_is_said_with_its_slope():
    rss = 50 + 2.0 * np.arange(60) / 6 + RNG.normal(0, 0.2, 60)  # +2 MB a minute over 10 minutes
    text = _said(_soak([300] * 60, rss))["steady_growth"]
    assert "server RSS +2" in text and "MB/min" in text and "60 intervals" in text and "p99" not in text


def test_latency_growing_through_a_soak_is_said_too():
    text = _said(_soak(300 + 10 * np.arange(30), [50] * 30))["steady_growth"]
    assert text.startswith("p50 +") and "p99 +" in text and "server RSS" not in text


def test_a_flat_soak_or_a_short_run_says_nothing_of_growth():
    assert "steady_growth" not in _said(_soak(RNG.normal(300, 30, 60), 50 + RNG.normal(0, 1, 60)))
    assert "steady_growth" not in _said(_soak([100, 200, 300, 400, 500], [10, 20, 30, 40, 50]))
