"""--rate stages (k6's ramping arrival rate): parsed with their units, paced one after the other,
each stage's figures kept apart in the cell, by every driver."""

from __future__ import annotations

import pytest

from rpcarena.config import parse_rate
from rpcarena.errors import UsageError
from rpcarena.record import hist
from rpcarena.results import load
from rpcarena.worker import pacer
from tests.conftest import cli
from tests.e2e.test_target import items  # noqa: F401 (the HTTP server fixture)

pytestmark = pytest.mark.serial  # timing-sensitive: each stage's rate is kept by the driver's pacing

STAGES = "200:0.5s,600:0.5s"
PER_STAGE = [100, 300]  # a constant schedule: each stage's rate times its duration


def test_a_plain_rate_has_no_stages():
    assert parse_rate("1000") == (1000.0, None)


def test_stages_are_read_with_their_units():
    rate, stages = parse_rate("500:10s,2000:1.5m,500:250ms")
    assert rate == 500.0
    assert stages == [{"rate_per_s": 500.0, "duration_s": 10.0}, {"rate_per_s": 2000.0, "duration_s": 90.0},
                      {"rate_per_s": 500.0, "duration_s": 0.25}]


@pytest.mark.parametrize("text,said", [("500:10", "give its unit"), ("500:", "give its duration"),
                                       ("fast:10s", "RATE:DURATION"), ("500:10s,,1:1s", "RATE:DURATION"),
                                       ("500:0s", "positive time"), ("abc", "500:10s,2000:20s")])
def test_bad_stage_text_says_the_fix(text, said):
    with pytest.raises(UsageError, match=said):
        parse_rate(text)


def test_staged_offsets_keep_each_stage_rate():
    stages = [{"rate_per_s": 10.0, "duration_s": 1.0}, {"rate_per_s": 40.0, "duration_s": 0.5}]
    offsets = list(pacer.staged_offsets_ns(stages))
    assert len(offsets) == 10 + 20
    assert offsets == sorted(offsets) and offsets[10] == 1_000_000_000 and offsets[-1] < 1_500_000_000
    schedule = pacer.Schedule(10.0, "constant", 0, None, 1_500_000_000, stages)
    assert [schedule.stage(o) for o in offsets] == [0] * 10 + [1] * 20


@pytest.mark.parametrize("extra,said", [(("-n", "10"), "drop -n"), (("-z", "5s"), "drop -z"),
                                        (("--find-max", "--slo", "p99<5ms"), "drop --rate"),
                                        (("--rate", "500:10"), "give its unit")])
def test_what_stages_cannot_go_with_is_refused(extra, said):
    done = cli("run", "--debug-mode", "--contender", "tcp-raw", "--rate", STAGES, *extra)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr


def _counted(out, done) -> None:
    """The one cell's stages hold each stage's calls, timed three ways."""
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    assert [s["calls"] for s in cell.stages] == PER_STAGE
    assert [s["rate_per_s"] for s in cell.stages] == [200.0, 600.0]
    assert cell.calls == sum(PER_STAGE)
    for stage, calls in zip(cell.stages, PER_STAGE):
        for key in ("latency_histogram", "latency_uncorrected_histogram", "schedule_lag_histogram"):
            assert hist.decode(stage[key]).get_total_count() == calls


@pytest.mark.parametrize("client", ["py", "go", "rust", "java"])
def test_each_stage_counts_its_own_calls(tmp_path, client):
    out = tmp_path / "r.json"
    done = cli("run", "--contender", "tcp-raw", "--client", client, "--workload", "usp.void", "--rate", STAGES,
               "--warmup", "0", "--warmup-max", "0", "--out", str(out))
    _counted(out, done)
    assert "--rate stages" in done.stdout


@pytest.mark.parametrize("client", ["py", "go"])
def test_a_target_is_driven_in_stages(items, tmp_path, client):  # noqa: F811
    out = tmp_path / "t.json"
    done = cli("target", "--client", client, "--http", items + "/items/{{id}}", "--var", "id=7",
               "--expect-json", "id=7", "--rate", STAGES, "--warmup", "0", "--out", str(out))
    _counted(out, done)
