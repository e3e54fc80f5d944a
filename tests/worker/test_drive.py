"""What the Python driver's cheap hot loop must still get exactly right: the histogram and the sample."""

from __future__ import annotations

import random

import numpy as np

from rpcarena.record import hist
from rpcarena.worker.drive import Reservoir


def test_record_many_fills_the_buckets_record_value_would():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.integers(0, 5000, 1000), rng.lognormal(np.log(3e5), 2, 20_000).astype(np.int64),
                             [0, 1, 2047, 2048, 4095, 4096, 2**35 - 1, 2**35, 60_000_000_001, 2**36 - 1, 2**40, -5]])
    one_by_one, in_bulk = hist.new(), hist.new()
    for value in values.tolist():
        one_by_one.record_value(value)
    hist.record_many(in_bulk, values[:700].tolist())
    hist.record_many(in_bulk, values[700:].tolist())
    hist.record_many(in_bulk, [])
    assert hist.encode(in_bulk) == hist.encode(one_by_one)
    assert (in_bulk.get_total_count(), in_bulk.get_min_value(), in_bulk.get_max_value()) == \
        (one_by_one.get_total_count(), one_by_one.get_min_value(), one_by_one.get_max_value())


def _kept(calls: int, limit: int, seed: int) -> list[int]:
    reservoir, keep_at = Reservoir(limit, random.Random(seed)), 1
    for seen in range(1, calls + 1):
        if seen == keep_at:
            keep_at = reservoir.keep(seen, seen - 1, 0)
    return [index for index, _ in reservoir.items]


def test_the_reservoir_keeps_every_call_below_its_limit():
    assert _kept(50, 100, 0) == list(range(50))


def test_the_reservoir_is_a_uniform_sample_of_the_calls():
    kept = np.concatenate([_kept(10_000, 100, seed) for seed in range(300)])
    assert kept.size == 300 * 100 and all(len(set(_kept(10_000, 100, s))) == 100 for s in range(5))
    tenths = np.bincount(kept // 1000, minlength=10) / kept.size
    assert np.all(np.abs(tenths - 0.1) < 0.01), tenths  # 30,000 draws: a tenth's SD is 0.0017
