"""The one merge of drive results: a driver's clients, a phase's drivers, a cluster's nodes.

Every level that measures in parts (the client threads of one Python driver, the driver
processes of a cell, the nodes of a cluster cell) gives its parts as `DriveResult`s and
gets one back from `merge`: HdrHistograms added, counts and CPU summed, the first error
example of each kind kept, the samples interleaved, the time series added by interval
start. Written once, so a new field of the result (a histogram, a count) is merged the
same way at every level.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rpcarena.contract import DriveResult
from rpcarena.record import hist, intervals


def merge(results: list[DriveResult]) -> DriveResult:
    """One result from several parts' results. A part's sample index i becomes i * parts + p, so
    that the samples of parts that took turns (client p of n made calls p, p + n, ...) interleave."""
    errors: Counter[str] = Counter()
    examples: dict[str, str] = {}
    samples: list[list[int]] = []
    for p, result in enumerate(results):
        errors.update(result.errors)
        for kind, text in result.error_examples.items():
            examples.setdefault(kind, text)
        samples.extend([index * len(results) + p, ns] for index, ns in result.samples)
    starts = [r.start_mono_ns for r in results if r.start_mono_ns is not None]
    ends = [r.end_mono_ns for r in results if r.end_mono_ns is not None]
    timed = len(starts) == len(ends) == len(results)
    return DriveResult(
        calls=sum(r.calls for r in results), errors=dict(errors), error_examples=examples,
        wall_s=(max(ends) - min(starts)) / 1e9 if timed else max(r.wall_s for r in results),
        histogram=hist.encode(hist.summed(r.histogram for r in results)),
        histogram_uncorrected=_sum([r.histogram_uncorrected for r in results]),
        histogram_schedule_lag=_sum([r.histogram_schedule_lag for r in results]),
        samples=sorted(samples), late_calls=sum(r.late_calls for r in results),
        retries=sum(r.retries for r in results), cpu_user_s=sum(r.cpu_user_s for r in results),
        cpu_sys_s=sum(r.cpu_sys_s for r in results), tool=results[0].tool,
        start_mono_ns=min(starts) if timed else None, end_mono_ns=max(ends) if timed else None,
        stages=_stages(results), intervals=intervals.summed(r.intervals for r in results), **_messages(results),
        **_sharing(results))


def _sum(encoded: list[str | None]) -> str | None:
    """The sum of the histograms the parts gave (None when none gave one)."""
    return hist.encode(hist.summed(encoded)) if any(encoded) else None


def _stages(results: list[DriveResult]) -> list[Any] | None:
    """Each --rate stage's figures over every part (None when the parts measured no stages)."""
    staged = [r.stages for r in results if r.stages]
    if not staged:
        return None
    return [{"calls": sum(s[k]["calls"] for s in staged),
             **{key: _sum([s[k][key] for s in staged])
                for key in ("histogram", "histogram_uncorrected", "histogram_schedule_lag")}}
            for k in range(len(staged[0]))]


def _messages(results: list[DriveResult]) -> dict[str, Any]:
    """Streams' reply messages: counts summed, per-message histograms added (none without streams)."""
    streams = [r for r in results if r.histogram_messages]
    if not streams:
        return {}
    return {"messages": sum(r.messages or 0 for r in streams),
            "histogram_messages": _sum([r.histogram_messages for r in streams])}


def _sharing(results: list[DriveResult]) -> dict[str, Any]:
    """`--connections`: the parts' connections and in-flight figures summed (parts run at once, so
    the calls in flight at once are at most the sum of their maxima), their waits added."""
    shared = [r for r in results if r.connections is not None]
    if not shared:
        return {}
    return {"connections": sum(r.connections or 0 for r in shared),
            "inflight_max": sum(r.inflight_max or 0 for r in shared),
            "inflight_mean": sum(r.inflight_mean or 0.0 for r in shared),
            "histogram_conn_wait": _sum([r.histogram_conn_wait for r in shared])}
