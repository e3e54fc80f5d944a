"""Pacing, configuration parsing, placement, driver splitting and merging: pure logic, from tables."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

from rpcarena import seeds
from rpcarena.analysis import hist
from rpcarena.config import RunConfig, parse_duration, parse_ints
from rpcarena.contract import DriveResult, DriveSpec
from rpcarena.errors import UsageError, WorkerError
from rpcarena.orchestration import phase
from rpcarena.process import placement
from rpcarena.worker import merge, pacer


@pytest.mark.parametrize("text,seconds", [("10s", 10.0), ("500ms", 0.5), ("2m", 120.0), ("1.5s", 1.5),
                                          ("250us", 0.00025), ("0", 0.0)])
def test_parse_duration(text, seconds):
    assert parse_duration(text, "--duration") == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["ten", "5 parsecs", "-1s", "", "5", "1.5"])  # a bare number: which unit?
def test_parse_duration_rejects(text):
    with pytest.raises(UsageError, match="--duration"):
        parse_duration(text, "--duration")


def test_parse_ints():
    assert parse_ints("1,8,32", "--clients") == [1, 8, 32]
    for bad in ("0", "a,b", "", "4,-1"):
        with pytest.raises(UsageError, match="--clients"):
            parse_ints(bad, "--clients")


@pytest.mark.parametrize("field,value,needle", [("calls", 0, "--calls"), ("repeat", 0, "--repeat"),
                                                ("pin", "diagonal", "--pin"), ("port", 70000, "--port"),
                                                ("rate_per_s", -5, "--rate"), ("arrival", "bursty", "--arrival")])
def test_config_rejects(field, value, needle):
    with pytest.raises(UsageError, match=needle):
        RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], **{field: value})


def test_constant_pacer():
    assert list(itertools.islice(pacer.offsets_ns(1000), 4)) == [0, 1_000_000, 2_000_000, 3_000_000]


def test_poisson_pacer_is_deterministic_and_has_the_rate():
    first = list(itertools.islice(pacer.offsets_ns(1000, "poisson", seed=3), 20_000))
    again = list(itertools.islice(pacer.offsets_ns(1000, "poisson", seed=3), 20_000))
    assert first == again
    assert first == sorted(first)
    assert 19.0e9 < first[-1] < 21.0e9  # 20,000 calls at 1,000/s: about 20 s of schedule


def test_schedule_hands_out_its_calls_once_by_count_and_by_end():
    by_count = pacer.Schedule(100, "constant", start_ns=5, calls=3, end_ns=0)
    assert [by_count.next() for _ in range(4)] == [5, 10_000_005, 20_000_005, None]
    by_end = pacer.Schedule(100, "constant", start_ns=0, calls=None, end_ns=30_000_000)
    assert [by_end.next() for _ in range(4)] == [0, 10_000_000, 20_000_000, None]


def test_pacer_rejects_bad_rate():
    with pytest.raises(ValueError):
        next(pacer.offsets_ns(0))


@pytest.mark.parametrize("policy,cpus,server,clients", [
    ("split", [0, 1], (0,), (1,)), ("same", [0, 1], (0,), (0,)), ("none", [0, 1], None, None),
    ("split", [0, 1, 2, 3], (0, 1), (2, 3)), ("split", [0], (0,), (0,))])
def test_placement(policy, cpus, server, clients):
    planned = placement.plan(policy, cpus)
    assert (planned.server, planned.clients) == (server, clients)


def _spec(**values) -> DriveSpec:
    return DriveSpec(contender="grpc-py", target="127.0.0.1:1", method="Void", requests=[{}], **values)


def test_split_shares_clients_calls_rate_and_samples():
    parts = phase.split(_spec(clients=5, calls=1001, sample_limit=100), procs=2)
    assert [p.clients for p in parts] == [3, 2]
    assert sum(p.calls for p in parts) == 1001
    assert all(p.sample_limit == 50 for p in parts)
    assert len(phase.split(_spec(clients=2, calls=10), procs=16)) == 2
    paced = phase.split(_spec(clients=4, duration_s=1.0, rate_per_s=1000.0), procs=2)
    assert [p.rate_per_s for p in paced] == [500.0, 500.0] and all(p.calls is None for p in paced)


def test_merge_adds_histograms_and_counts():
    a, b = hist.new(), hist.new()
    for v in (1000, 2000):
        a.record_value(v)
    b.record_value(3000)
    merged = merge.merge([DriveResult.from_json(r) for r in (
        {"calls": 2, "errors": {"timeout": 1}, "wall_s": 1.0, "histogram": hist.encode(a), "samples": [[0, 1000]],
         "start_mono_ns": 10, "end_mono_ns": 1_000_000_010, "cpu_user_s": 0.5, "cpu_sys_s": 0.1, "tool": {}},
        {"calls": 1, "errors": {"timeout": 2, "connection": 1}, "wall_s": 1.5, "histogram": hist.encode(b),
         "samples": [[0, 3000]], "start_mono_ns": 0, "end_mono_ns": 1_500_000_000, "cpu_user_s": 0.2,
         "cpu_sys_s": 0.0, "tool": {}})])
    assert merged.calls == 3
    assert merged.errors == {"timeout": 3, "connection": 1}
    assert hist.decode(merged.histogram).get_total_count() == 3
    assert merged.wall_s == pytest.approx(1.5)
    assert merged.cpu_user_s == pytest.approx(0.7)
    assert len(merged.samples) == 2


def test_merged_samples_interleave_as_the_parts_took_turns():
    """Client p of n makes calls p, p + n, ...: its k-th kept call is call k * n + p once merged (a
    driver's threads and a phase's processes alike), and messages of streams add up."""
    def part(samples: list[list[int]], messages: int | None = None) -> DriveResult:
        h = hist.new()
        for _, ns in samples:
            h.record_value(ns)
        return DriveResult(calls=len(samples), errors={}, wall_s=1.0, cpu_user_s=0.0, cpu_sys_s=0.0,
                           histogram=hist.encode(h), samples=samples, tool={}, messages=messages,
                           histogram_messages=hist.encode(h) if messages else None)
    merged = merge.merge([part([[0, 10], [1, 11]], messages=4), part([[0, 20], [2, 22]], messages=6), part([])])
    assert merged.samples == [[0, 10], [1, 20], [3, 11], [7, 22]]
    assert merged.messages == 10 and hist.decode(merged.histogram_messages).get_total_count() == 4
    assert merged.histogram_uncorrected is None and merged.histogram_schedule_lag is None


def test_workload_selection():
    assert len(seeds.select("usp.*")) == 12
    assert [w.id for w in seeds.select("usp.void,usp.bool")] == ["usp.void", "usp.bool"]
    with pytest.raises(UsageError, match="rpcarena list"):
        seeds.select("nope.*")


def test_hprpc_design():
    ids = {w.id for w in seeds.select("hprpc.*")}
    assert {f"hprpc.large{n}" for n in (128, 256, 512, 1024, 2048, 4096, 8192)} <= ids
    assert {f"hprpc.average{n}" for n in (10, 100, 1000, 10000)} <= ids
    assert {f"hprpc.randnums{n}" for n in (10, 100, 1000, 10000)} <= ids
    assert "hprpc.hello" in ids
    assert {"hprpc.checksum128", "hprpc.checksum8192"} <= ids  # every field read: lazy and eager codecs alike


def test_cs6650_ships_the_seed_passage():
    words = seeds.WORKLOADS["cs6650.word"].requests
    assert words[0] == {"value": "A"} and len(words) > 100
    assert seeds.WORKLOADS["cs6650.text"].responses[0]["value"].startswith("\necap")


def test_fast_summary_equals_hdrhistogram():
    import random

    h = hist.new()
    rng = random.Random(5)
    for _ in range(20_000):
        h.record_value(int(rng.lognormvariate(11, 1.2)))
    fast = hist.summary_us(h)
    assert fast["count"] == 20_000
    for p in hist.PERCENTILES:
        assert fast[f"p{p:g}_us"] == h.get_value_at_percentile(p) / 1e3
    assert fast["mean_us"] == pytest.approx(h.get_mean_value() / 1e3, rel=1e-12)
    assert fast["sd_us"] == pytest.approx(h.get_stddev() / 1e3, rel=1e-9)
    assert hist.percentiles(h, (0.5, 100.0)) == {0.5: h.get_value_at_percentile(0.5),
                                                100.0: h.get_value_at_percentile(100.0)}
    assert hist.summary_us(hist.new()) == {"count": 0}


class _ExitedDriver:
    """A driver process that has exited; its unread output lines (None: a read that timed out)."""

    log = Path("driver-0.log")

    def __init__(self, reads: list) -> None:
        self.reads = reads

    def read_json(self, timeout_s: float) -> dict | None:
        return self.reads.pop(0) if self.reads else None

    def alive(self) -> bool:
        return False

    def last_error_line(self) -> str:
        return "no message; exit code 0"


def test_a_result_written_just_before_the_driver_exits_is_kept():
    drive = phase.Phase([], None, Path("."), lambda: True, lambda: "")
    wants_result = lambda m: "calls" in m  # noqa: E731
    # The first read timed out; the driver then wrote its result and exited before the check.
    assert drive._await(_ExitedDriver([None, {"calls": 3}]), time.monotonic() + 5, wants_result) == {"calls": 3}
    with pytest.raises(WorkerError, match="client driver failed: no message; exit code 0"):
        drive._await(_ExitedDriver([None]), time.monotonic() + 5, wants_result)
