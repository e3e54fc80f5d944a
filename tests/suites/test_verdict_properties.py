"""A verdict never reads better than its evidence: weaker evidence moves it toward 'cannot tell'.

A verdict is two levels, for and against the claim (`vocabulary.LEVELS`). Wider intervals (the same
estimates, larger spreads), or a cell losing its interval (too few trials), never raise either level;
estimates moved against a direction claim never raise the level for it.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcarena.analysis import stats
from rpcarena.suites import family, vocabulary
from rpcarena.suites.family import Cell
from rpcarena.suites.forms import DIRECTION, About, AtLeast, Equivalent, UpTo

FORMS = (DIRECTION, AtLeast(2.0), About(3.0), UpTo(5.0), Equivalent(1.1))


def ratio(log_estimate: float, spread: float, df: float) -> stats.Ratio:
    estimate, half = math.exp(log_estimate), stats.t975(df) * spread
    return stats.Ratio(estimate, stats.Interval(estimate, estimate * math.exp(-half), estimate * math.exp(half)),
                       (3, 3), spread, df)


cell = st.tuples(st.sampled_from(FORMS), st.floats(-2.5, 3.0), st.floats(0.005, 1.5), st.floats(2.0, 30.0))
families = st.lists(cell, min_size=1, max_size=6)
needs = st.sampled_from((1.0, 0.75, 0.6))


def judged(cells: list[tuple], need: float, widen: float = 1.0, shift: float = 0.0,
           hidden: int | None = None) -> tuple[int, int]:
    found = family.judge([Cell(f"c{i}", None if i == hidden else ratio(log + shift, spread * widen, df), form)
                          for i, (form, log, spread, df) in enumerate(cells)], need)
    return vocabulary.LEVELS[found.verdict]


def no_higher(weaker: tuple[int, int], stronger: tuple[int, int]) -> bool:
    return weaker[0] <= stronger[0] and weaker[1] <= stronger[1]


@settings(max_examples=300, deadline=None)
@given(families, needs, st.floats(1.0, 20.0))
def test_wider_intervals_never_raise_a_verdict_either_way(cells, need, widen):
    assert no_higher(judged(cells, need, widen), judged(cells, need))


@settings(max_examples=200, deadline=None)
@given(families, needs, st.data())
def test_a_cell_without_its_interval_never_raises_a_verdict(cells, need, data):
    hidden = data.draw(st.integers(0, len(cells) - 1))
    assert no_higher(judged(cells, need, hidden=hidden), judged(cells, need))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from((DIRECTION, AtLeast(2.0))), st.floats(-2.5, 3.0), st.floats(0.005, 1.5),
                          st.floats(2.0, 30.0)), min_size=1, max_size=6), needs, st.floats(-3.0, 0.0))
def test_estimates_moved_against_a_direction_never_raise_the_support(cells, need, shift):
    assert judged(cells, need, shift=shift)[0] <= judged(cells, need)[0]


def test_every_verdict_word_has_its_levels_and_one_meaning():
    assert set(vocabulary.LEVELS) | {vocabulary.NOT_COMPARABLE} == set(vocabulary.VERDICTS)
    assert len(set(vocabulary.MEANINGS.values())) == len(vocabulary.MEANINGS)
