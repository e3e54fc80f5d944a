"""HdrHistograms: the record every latency statistic is computed from.

Values are nanoseconds, 1 ns to 60 s, 3 significant digits, exchanged in the
standard V2 compressed base64 encoding that HdrHistogram's Java, Go, Rust and
Python libraries all read.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable

import numpy as np
from hdrh.histogram import HdrHistogram

LOWEST_NS = 1
HIGHEST_NS = 60_000_000_000
SIGNIFICANT_DIGITS = 3
PERCENTILES = (50.0, 90.0, 99.0, 99.9)
# What one encoded histogram may inflate to. Ours (1 ns to 60 s, 3 digits) hold ~27,000 counts of at
# most 9 bytes each: about 250 KB at the very worst. A few hundred KB of zlib can otherwise claim
# hundreds of MB (a compressed-histogram bomb in a results file).
MAX_DECODED_BYTES = 2**20
_EXTERNAL_HEADER = 8  # the V2 compressed encoding's cookie and length, before the zlib stream
_PAYLOAD_HEADER = struct.Struct(">iiiiqqd")  # cookie, length, offset, significant digits, lowest, highest, ratio


class TooLarge(ValueError):
    """An encoded histogram that would inflate past what any rpcarena histogram needs."""


def new() -> HdrHistogram:
    return HdrHistogram(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_DIGITS)


def record_many(histogram: HdrHistogram, values_ns: Iterable[int]) -> None:
    """Record many values into the very buckets record_value would, in one pass over them: hdrh's
    record_value costs ~1.4 µs in pure Python, more than all the rest of a driver's call."""
    values = np.fromiter(values_ns, dtype=np.int64)
    values = values[(values >= 0) & (values < 2**53)]  # beyond 2**53: past counts_len, dropped by hdrh too
    # hdrh's _counts_index_for, on arrays: the bucket is the bit length (frexp's exponent, exact below 2**53)
    _, bits = np.frexp((values | histogram.sub_bucket_mask).astype(np.float64))
    bucket = bits.astype(np.int64) - histogram.unit_magnitude - (histogram.sub_bucket_half_count_magnitude + 1)
    sub_bucket = values >> (bucket + histogram.unit_magnitude)
    index = ((bucket + 1) << histogram.sub_bucket_half_count_magnitude) + sub_bucket - histogram.sub_bucket_half_count
    kept = index < histogram.counts_len
    if not kept.any():
        return
    counts = np.ctypeslib.as_array(histogram.counts)[:histogram.counts_len]
    counts += np.bincount(index[kept], minlength=histogram.counts_len).astype(counts.dtype)
    histogram.total_count += int(kept.sum())
    histogram.min_value = min(histogram.min_value, int(values[kept].min()))
    histogram.max_value = max(histogram.max_value, int(values[kept].max()))


def encode(histogram: HdrHistogram) -> str:
    return str(histogram.encode().decode("ascii"))


def decode(encoded: str | None) -> HdrHistogram:
    """The histogram of its standard encoding, refused (TooLarge) before it is inflated past its bounds."""
    if not encoded:
        return new()
    raw = encoded.encode("ascii") if isinstance(encoded, str) else encoded
    _check_bounds(raw)
    return HdrHistogram.decode(raw)


def _check_bounds(raw: bytes) -> None:
    """Inflate at most MAX_DECODED_BYTES, and refuse more precision than ours: hdrh itself would inflate
    the whole stream and allocate every count its header asks for."""
    inflater = zlib.decompressobj()
    payload = inflater.decompress(base64.b64decode(raw)[_EXTERNAL_HEADER:], MAX_DECODED_BYTES + 1)
    if len(payload) > MAX_DECODED_BYTES:
        raise TooLarge(f"a histogram inflates past {MAX_DECODED_BYTES // 2**20} MiB")
    if len(payload) >= _PAYLOAD_HEADER.size:
        digits, lowest = _PAYLOAD_HEADER.unpack_from(payload)[3:5]
        if not (1 <= digits <= SIGNIFICANT_DIGITS and lowest >= 1):
            raise TooLarge(f"a histogram asks for {digits} significant digits from {lowest} (at most "
                           f"{SIGNIFICANT_DIGITS}, from 1 or more)")


def summed(encoded: Iterable[str | None]) -> HdrHistogram:
    total = new()
    for item in encoded:
        if item:
            total.add(decode(item))
    return total


def scaled(encoded: str | None, factor: float) -> str | None:
    """The same recorded calls with every value multiplied by `factor` (each bucket moved whole): what
    a uniform slowdown would have recorded, the noise kept."""
    if not encoded:
        return encoded
    counts, _, median = _buckets(decode(encoded))
    out = new()
    for count, value in zip(counts, median):
        out.record_value(max(int(round(value * factor)), LOWEST_NS), int(count))
    return encode(out)


def _buckets(histogram: HdrHistogram) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(counts, highest equivalent values, median equivalent values) of the non-empty buckets.

    hdrh's own percentile, mean and SD each walk every one of ~27,000 buckets in
    Python; walking only the recorded ones, once, gives the same numbers far faster.
    """
    counts = np.ctypeslib.as_array(histogram.counts)[:histogram.counts_len]
    index = np.flatnonzero(counts)
    values = [histogram.get_value_from_index(int(i)) for i in index]
    highest = np.array([histogram.get_highest_equivalent_value(v) for v in values], dtype=np.float64)
    median = np.array([histogram._hdr_median_equiv_value(v) for v in values], dtype=np.float64)
    return counts[index].astype(np.int64), highest, median


def percentiles(histogram: HdrHistogram, wanted: tuple[float, ...]) -> dict[float, int]:
    """Values at percentiles, exactly as HdrHistogram.get_value_at_percentile gives them."""
    counts, highest, _ = _buckets(histogram)
    cumulative = np.cumsum(counts)
    total = int(cumulative[-1]) if len(cumulative) else 0
    out = {}
    for p in wanted:
        if total == 0:
            out[p] = 0
            continue
        target = max(int(min(p, 100.0) * total / 100 + 0.5), 1)
        out[p] = int(highest[int(np.searchsorted(cumulative, target))])
    return out


def summary_us(histogram: HdrHistogram) -> dict[str, float | int]:
    """Percentiles, mean, SD and CV in microseconds, from the histogram alone."""
    count = histogram.get_total_count()
    if count == 0:
        return {"count": 0}
    counts, highest, median = _buckets(histogram)
    cumulative = np.cumsum(counts)
    mean_ns = float(np.dot(counts, median)) / count
    sd_ns = float(np.sqrt(np.dot(counts, (median - mean_ns) ** 2) / count))
    mean, sd = mean_ns / 1e3, sd_ns / 1e3
    out: dict[str, float | int] = {"count": count, "min_us": histogram.get_min_value() / 1e3,
                                   "max_us": histogram.get_max_value() / 1e3,
                                   "mean_us": mean, "sd_us": sd, "cv": sd / mean if mean else 0.0}
    for p in PERCENTILES:
        target = max(int(p * count / 100 + 0.5), 1)
        out[f"p{p:g}_us"] = float(highest[int(np.searchsorted(cumulative, target))]) / 1e3
    return out
