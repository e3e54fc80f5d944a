"""A cell over time: its measured phase interval by interval (1 s by default, `--interval`).

Every driver keeps one HdrHistogram per interval beside the cell's own, with the calls and
the errors by kind begun in it, and hands them over as a list of entries
`{"start_s", "calls", "errors", "histogram"}`. Clients, driver processes and cluster nodes
are summed here by start, for `worker.merge` (the one merge): the one place that knows how (a
spike of one client must stay in its second, not be spread over the run). Memory stays
bounded over a soak: an interval is a histogram, never its samples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from rpcarena.record import hist


class IntervalEntry(TypedDict):
    """One interval of a cell's measured phase, as the contract carries it and a cell keeps it."""

    start_s: float
    calls: int  # verified: its histogram's count
    errors: dict[str, int]  # failed calls begun in it, by kind
    histogram: str | None  # encoded HdrHistogram (ns); None for an interval without calls (`filled`)


class ServerIntervalEntry(TypedDict):
    """The server over one interval (orchestration.sampler): None where it was not read."""

    start_s: float
    rss_bytes: int | None  # resident at the interval's end
    wire_in_bytes: int | None
    wire_out_bytes: int | None


@dataclass(frozen=True)
class LiveInterval:
    """One closed interval of the running cell, summed over its clients (orchestration.live)."""

    start_s: float
    calls_per_s: float  # calls sent: verified and failed
    p99_us: float | None
    errors: int
    calls: int = 0  # verified
    latency: dict[str, Any] = field(default_factory=dict)  # hist.summary_us of its histogram; {} without calls


def entry(start_s: float, histogram: Any, errors: dict[str, int]) -> IntervalEntry:
    """One interval as the contract carries it: its verified calls are its histogram's count."""
    return {"start_s": round(start_s, 6), "calls": int(histogram.get_total_count()),
            "errors": {kind: n for kind, n in errors.items() if n}, "histogram": hist.encode(histogram)}


def summed(series: Iterable[list[IntervalEntry] | None]) -> list[IntervalEntry] | None:
    """One series from several (clients, driver processes, nodes): entries of the same start added,
    in order of start; None when none was given (a driver that keeps no intervals)."""
    given = [s for s in series if s is not None]
    if not given:
        return None
    histograms: dict[float, Any] = {}
    errors: dict[float, Counter[str]] = {}
    for one in given:
        for item in one:
            start = float(item["start_s"])
            histograms.setdefault(start, hist.new()).add(hist.decode(item["histogram"]))
            errors.setdefault(start, Counter()).update(item.get("errors") or {})
    return [entry(start, histograms[start], errors[start]) for start in sorted(histograms)]


def filled(series: list[IntervalEntry], interval_s: float, wall_s: float) -> list[IntervalEntry]:
    """Every interval of the phase, those without a call or error as empty entries: a stall longer
    than an interval is a second with no calls, which a plot must show as 0, not skip."""
    have = {round(float(item["start_s"]) / interval_s): item for item in series}
    count = max([int(wall_s / interval_s), *[k + 1 for k in have]])  # calls begin before the end: no extra
    return [have.get(k) or IntervalEntry(start_s=round(k * interval_s, 6), calls=0, errors={}, histogram=None)
            for k in range(count)]


SERVER_KEYS = {"wire_in_bytes": "wire_in_bytes", "wire_out_bytes": "wire_out_bytes", "rss_bytes": "server_rss_bytes"}


def rows(series: list[IntervalEntry], interval_s: float, wall_s: float,
         server: list[ServerIntervalEntry] | None = None) -> list[dict[str, Any]]:
    """Each interval's statistics, from its histogram: calls/s (over its part of the phase: the last
    is shorter), errors, p50/p90/p99/max in microseconds; with the server's intervals
    (orchestration.sampler), the bytes on the wire each way and the server's resident bytes at its end."""
    # read as a mapping: a document's entry may lack a key (None then), as an unread figure is None
    by_start: dict[int, Mapping[str, object]] = {round(float(item["start_s"]) / interval_s): item
                                                 for item in server or []}
    return [dict(row, **{name: by_start.get(round(row["start_s"] / interval_s), {}).get(key)
                         for key, name in SERVER_KEYS.items()}) if server else row
            for row in _client_rows(series, interval_s, wall_s)]


def _client_rows(series: list[IntervalEntry], interval_s: float, wall_s: float) -> list[dict[str, Any]]:
    out = []
    for item in filled(series, interval_s, wall_s):
        start = float(item["start_s"])
        length = max(min(interval_s, wall_s - start), 1e-9) if wall_s > start else interval_s
        errors = sum((item.get("errors") or {}).values())
        summary = hist.summary_us(hist.decode(item["histogram"])) if item["calls"] else {}
        out.append({"start_s": start, "calls": item["calls"], "errors": errors,
                    "calls_per_s": (item["calls"] + errors) / length,
                    **{key: summary.get(key) for key in ("p50_us", "p90_us", "p99_us", "max_us")}})
    return out


def total_calls(series: list[IntervalEntry] | None) -> int:
    """The verified calls of every interval: the cell's `calls`, when every call fell in one."""
    return sum(int(item["calls"]) for item in series or [])
