"""The one merge of drive results: histograms and counts added, samples interleaved as their parts took turns."""

from __future__ import annotations

import pytest

from rpcarena.contract import DriveResult
from rpcarena.record import hist
from rpcarena.worker import merge


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
