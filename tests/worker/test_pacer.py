"""Open-loop schedules from tables: a constant rate, Poisson arrivals, each call handed out once."""

from __future__ import annotations

import itertools

import pytest

from rpcarena.worker import pacer


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
