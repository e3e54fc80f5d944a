"""Open-loop load: latency from the intended start, so a stall cannot hide (wrk2)."""

from __future__ import annotations

import time

import psutil
import pytest
from tests.conftest import popen_cli, server_of, wait_for

from rpcarena.analysis import hist, slo
from rpcarena.errors import UsageError
from rpcarena.results import Cell, load

STALL_S = 0.3


def test_a_stalled_open_loop_run_keeps_both_histograms_of_every_call(tmp_path):
    """What the stall does to each histogram is measured by benchmarks/timing_claims.py (stall)."""
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.int32", "--rate", "100",
                    "--duration", "4s", "--warmup", "0", "--out", str(out))
    server = wait_for(lambda: server_of(psutil.Process(cli.pid), "tcp-raw"))
    time.sleep(1.5)
    server.suspend()  # the server stalls once, for STALL_S
    time.sleep(STALL_S)
    server.resume()
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 0, stderr
    (cell,) = load(out).cells
    corrected = cell.histogram
    uncorrected = hist.decode(cell.latency_uncorrected_histogram)
    assert corrected.get_total_count() == uncorrected.get_total_count() == cell.calls
    assert cell.calls > 0 and cell.errors == {}  # the stall delays calls, it fails none


def test_the_rate_is_kept(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "--rate", "200", "--clients", "2",
                    "--duration", "1s", "--warmup", "0", "--out", str(out))
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 0, stderr
    (cell,) = load(out).cells
    assert cell.calls == 200  # a fixed schedule: the count is the rate times the duration
    assert cell.rate_per_s == 200


@pytest.mark.parametrize("text,statistic,limit_us", [("p99<5ms", "p99", 5000), ("p99.9<=20ms", "p99.9", 20000),
                                                     ("mean<750us", "mean", 750)])
def test_slo_parsing(text, statistic, limit_us):
    (objective,) = slo.parse(text)
    assert (objective.statistic, objective.limit_us) == (statistic, pytest.approx(limit_us))


@pytest.mark.parametrize("text", ["p99", "p99>5ms", "fast", "p99<soon"])
def test_slo_rejects(text):
    with pytest.raises(UsageError, match="--slo"):
        slo.parse(text)


def test_slo_verdict_from_a_histogram():
    h = hist.new()
    for value_ns in [1_000_000] * 98 + [10_000_000] * 2:
        h.record_value(value_ns)
    cell = Cell(contender="x", client="py", workload="w", method="Void", clients=1, calls=100,
                latency_histogram=hist.encode(h))
    assert slo.verdict(cell, slo.parse("p98<2ms"))
    assert not slo.verdict(cell, slo.parse("p99<2ms"))
    cell.errors = {"timeout": 1}
    assert not slo.verdict(cell, slo.parse("p98<2ms"))
