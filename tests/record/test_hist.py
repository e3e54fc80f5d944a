"""The histogram's fast summary: the same percentiles, mean and deviation as HdrHistogram's own."""

from __future__ import annotations

import pytest

from rpcarena.record import hist


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
