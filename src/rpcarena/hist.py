"""HdrHistograms: the record every latency statistic is computed from.

Values are nanoseconds, 1 ns to 60 s, 3 significant digits, exchanged in the
standard V2 compressed base64 encoding that HdrHistogram's Java, Go, Rust and
Python libraries all read.
"""

from __future__ import annotations

from collections.abc import Iterable

from hdrh.histogram import HdrHistogram

LOWEST_NS = 1
HIGHEST_NS = 60_000_000_000
SIGNIFICANT_DIGITS = 3
PERCENTILES = (50.0, 90.0, 99.0, 99.9)


def new() -> HdrHistogram:
    return HdrHistogram(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_DIGITS)


def encode(histogram: HdrHistogram) -> str:
    return histogram.encode().decode("ascii")


def decode(encoded: str | None) -> HdrHistogram:
    if not encoded:
        return new()
    return HdrHistogram.decode(encoded.encode("ascii") if isinstance(encoded, str) else encoded)


def merge(encoded: Iterable[str | None]) -> HdrHistogram:
    total = new()
    for item in encoded:
        if item:
            total.add(decode(item))
    return total


def summary_us(histogram: HdrHistogram) -> dict[str, float | int]:
    """Percentiles, mean, SD and CV in microseconds, from the histogram alone."""
    count = histogram.get_total_count()
    if count == 0:
        return {"count": 0}
    mean = histogram.get_mean_value() / 1e3
    sd = histogram.get_stddev() / 1e3
    out: dict[str, float | int] = {"count": count, "min_us": histogram.get_min_value() / 1e3,
                                   "max_us": histogram.get_max_value() / 1e3,
                                   "mean_us": mean, "sd_us": sd, "cv": sd / mean if mean else 0.0}
    for p in PERCENTILES:
        out[f"p{p:g}_us"] = histogram.get_value_at_percentile(p) / 1e3
    return out
