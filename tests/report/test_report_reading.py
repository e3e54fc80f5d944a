"""HTML a person reads (issue 40): the headline first, warnings as grouped lines with their detail
folded, no chart with more series than it can tell apart, legends off the data, a unit on every
column, trials numbered from 1. Documents from the fixture (`trials`), nothing measured."""

from __future__ import annotations

import dataclasses
import re

import pytest

from rpcarena import report
from rpcarena.analysis.groups import group
from rpcarena.record import hist, intervals
from rpcarena.report import figures, overview, summary
from tests.conftest import document
from tests.report.test_answer_headline import busy, contender, default_arena, with_changes


def drawn_without_charts(doc) -> str:
    """The page's summary and numbers tables, as write_html makes them, without drawing its charts."""
    sources = [report.Source("run", doc)]
    grouped = report.by_workload(sources, False)
    top = overview.summary_section(sources, grouped, {w: f"w-{w}" for w in grouped}, 2)
    return top + '<nav id="contents">' + "".join(summary.numbers(g, 2) for g in grouped.values())


@pytest.fixture(scope="module")
def busy_page() -> str:
    return drawn_without_charts(document(*with_changes(default_arena(("usp.distance",)), busy)))


def summary_of(page: str) -> str:
    return page[page.index('<section id="summary"'):page.index('id="contents"')]


def test_the_headline_opens_the_summary(busy_page):
    summary = summary_of(busy_page)
    first = summary.index('<div class="headline">')
    assert first < summary.index("Fastest per comparison") < summary.index("Warnings that matter")
    assert re.search(r"<li>usp\.distance: rest-warp, 1\.\d\dx \[[\d.]+-[\d.]+\] ahead of grpc-tonic</li>", summary)


def test_warnings_are_a_line_per_cause_with_each_contenders_sentence_folded(busy_page):
    summary = summary_of(busy_page)
    causes = re.findall(r"<details><summary>⚠ ([^<]*)</summary><ul>(.*?)</ul></details>", summary)
    assert [line.split(" (")[0] for line, _ in causes] == ["other load"]
    (line, detail), = causes
    assert re.match(r"other load \(0\.95 CPUs\) on \d+ of 18 cells: measure on a quiet machine", line), line
    assert "other load: processes outside the run ran 0.95 CPUs" in detail


def test_a_quiet_run_has_no_warning():
    page = drawn_without_charts(document(*default_arena(("usp.distance",))))
    assert "No warnings: no cause was large enough to change this answer." in summary_of(page)
    assert "<details>" not in page.split('id="contents"')[1]


def test_every_column_of_the_numbers_has_its_unit(busy_page):
    table = busy_page.split('class="numbers"')[1].split("</thead>")[0]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    named = {"#", "contender", "clients", "trials", "calls per trial"}  # names and counts
    unitless = [h for h in headers if h not in named and not re.search(r"µs|/s|/call|×|÷", h)]
    assert unitless == [], headers


def test_trials_are_numbered_from_1():
    fig = figures.scatter(_groups(2))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["trial 1", "trial 2", "trial 3"]


def _groups(count: int) -> list:
    names = ["a", "b", "c", "d", "e", "f"][:count]
    return group(cell for g in [contender(n, "usp.int32", 1.0 + k, "grpc") for k, n in enumerate(names)] for cell in g)


def _drawn(fig) -> list:
    return [ax for ax in fig.axes if ax.get_visible()]


def test_more_series_than_a_panel_tells_apart_become_a_panel_each():
    many, few = figures.histogram(_groups(6)), figures.histogram(_groups(3))
    assert len(_drawn(many)) == 6 and all(len(ax.patches) <= figures.MAX_SERIES for ax in _drawn(many))
    assert len(_drawn(few)) == 1
    assert len(_drawn(figures.scatter(_groups(6)))) == 6  # a cloud per contender, never one over another


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("draw", [figures.histogram, figures.cpu])
def test_a_legend_never_covers_the_data(draw):
    fig = draw(_groups(3))
    renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else None
    if renderer is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None
    assert not _overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))


def _soak(cell, steps: int, errors: int = 0):
    """The cell as if its phase had `steps` intervals of a second each."""
    entries = []
    for k in range(steps):
        h = hist.new()
        h.record_value(100_000, 50)
        entries.append(intervals.entry(float(k), h, {"timeout": errors} if errors else {}))
    return dataclasses.replace(cell, intervals=entries, interval_s=1.0, wall_s=float(steps))


def test_over_time_has_a_row_per_contender_and_leaves_out_stubs_and_empty_panels():
    groups = _groups(2)
    assert figures.over_time(groups) is None  # the fixture's phases are sub-second: one step, no course
    long = group([_soak(c, 5) for g in groups for c in g.cells])
    fig = figures.over_time(long)
    titles = [ax.get_title(loc="left") for ax in _drawn(fig)]
    assert len(titles) == 2 * 3 and titles[0] == "a: calls/s" and "failed calls" not in titles  # no error at all
    failing = group([_soak(c, 5, errors=2) for g in groups for c in g.cells])
    assert "failed calls" in [ax.get_title(loc="left") for ax in _drawn(figures.over_time(failing))]


def test_the_heatmap_says_what_its_grey_cells_are(busy_page):
    assert "Grey: not in that comparison" in summary_of(busy_page)
