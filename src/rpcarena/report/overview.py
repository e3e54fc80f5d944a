"""The answer first, at the top of the HTML report: the answer in a few lines, the fastest in each
comparison, a contenders × comparisons heatmap of the ratio to the fastest median, and the warnings
that change how to read them, by cause (each contender's sentence folded under its cause).

A comparison is one workload at one concurrency over one network (the numbers table's scope).
The heatmap is drawn here as inline SVG: a few rectangles, each with a <title> tooltip and a link
to its workload's details, where a plotting library would add weight for nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from rpcarena.analysis import groups as groups_of
from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group
from rpcarena.report import answer, causes, headline, html, searches
from rpcarena.report.findings import badge

WORST_RATIO = 10.0  # the heatmap's reddest colour: this many times the fastest median or more
# green (the fastest) through yellow to red, in even steps of log(ratio)
PALETTE = ((0x1a, 0x98, 0x50), (0xfe, 0xe0, 0x8b), (0xd7, 0x30, 0x27))
MISSING = "#e6e6e6"


@dataclass(frozen=True)
class Standing:
    """A group's place in its comparison: its ratio to the fastest median over trials, as the
    terminal's answer and `compare` take it (None for the fastest)."""

    group: Group
    ratio: stats.Ratio | None

    @property
    def tied(self) -> bool:
        """Judged (3 trials a side or more) and not significantly slower than the fastest."""
        return self.ratio is not None and self.ratio.judged and not self.ratio.above

    @property
    def said(self) -> str:
        """'slower', 'not significant' or 'cannot tell' (too few trials to judge)."""
        if self.ratio is None or not self.ratio.judged:
            return "cannot tell"
        return "slower" if self.ratio.above else "not significant"


@dataclass(frozen=True)
class Comparison:
    workload: str
    clients: int
    setting: str | None
    title: str
    ranked: list[Standing]  # fastest first; groups without raw samples are not ranked
    floors: list[Group]  # the references the mechanisms are read against, not ranked among them


def contender(g: Group) -> str:
    """The group's label without its network, which the comparison already names."""
    setting = g.cells[0].setting
    return g.label.replace(f" ({setting})", "") if setting else g.label


def _ranked(groups: list[Group]) -> list[Standing]:
    drawn = sorted((g for g in groups if g.has_samples), key=answer.p50_us)
    if not drawn:
        return []
    best = drawn[0]
    return [Standing(best, None)] + [Standing(g, groups_of.ratio(g, best, "median")) for g in drawn[1:]]


def comparisons(grouped: dict[str, list[Group]]) -> list[Comparison]:
    """Every comparison of the report, in the order of its workloads."""
    every = [g for groups in grouped.values() for g in groups]
    several_levels = len({g.clients for g in every}) > 1
    out = []
    for workload, groups in grouped.items():
        scopes: dict[tuple[int, str | None], list[Group]] = {}
        for g in groups:
            scopes.setdefault((g.clients, g.cells[0].setting), []).append(g)
        for (clients, setting), members in scopes.items():
            title = workload + (f" · {clients} client{'s' * (clients > 1)}" if several_levels else "")
            title += f" · {setting}" if setting else ""
            out += _apart(workload, clients, setting, title, members)
    return out


def _apart(workload: str, clients: int, setting: str | None, title: str, members: list[Group]) -> list[Comparison]:
    """One comparison of the RPC mechanisms (floors as their reference), and one of those that moved no
    data, as the terminal's answer ranks them (`answer.rankings`)."""
    moved, apart, floors = answer.sides(workload, members)
    return [Comparison(workload, clients, setting, name, _ranked(chosen), floors)
            for chosen, name in ((moved, title), (apart, f"{title} · {answer.MOVED_NO_DATA}")) if chosen]


def _runner_up(c: Comparison) -> tuple[str, str]:
    if len(c.ranked) < 2:
        return "-", "only one contender measured"
    second = c.ranked[1]
    return f"{contender(second.group)} {answer.p50_us(second.group):,.1f} µs", answer.ratio_text(second.ratio)


def _floor(c: Comparison) -> str:
    """'tcp-raw-rust 53.0 µs', one a line: the floors of the comparison, the least a call costs in each
    language (the least of each echo's trials, as the terminal's floor line has it)."""
    floors = sorted(c.floors, key=answer.least_p50_us)
    lines = [escape(f"{contender(f)} {answer.least_p50_us(f):,.1f} µs") for f in floors]
    return html.Markup("<br>".join(lines)) if lines else "-"


def winners(found: list[Comparison]) -> str:
    """One row per comparison: the fastest RPC mechanism and its median, how far behind the runner-up
    is, and the floor they are read against."""
    rows = []
    for c in found:
        if not c.ranked:
            rows.append((c.title, "nothing with raw samples", "-", "-", _floor(c)))
            continue
        best = c.ranked[0].group
        rows.append((c.title, html.Markup(f"<b>{escape(contender(best))}</b> {answer.p50_us(best):,.1f} µs"),
                     *_runner_up(c), _floor(c)))
    headers = ("comparison", "fastest (median µs)", "runner-up (median µs)", "its ratio over trials [95% CI]",
               "floor (median of its fastest trial, µs)")
    return html.table(headers, rows, left=2, css="winners")


def colour(ratio: float) -> str:
    """The heatmap's fill for a ratio to the fastest: green at 1, yellow, red at WORST_RATIO and above."""
    t = min(max(math.log(max(ratio, 1.0)) / math.log(WORST_RATIO), 0.0), 1.0) * (len(PALETTE) - 1)
    k = min(int(t), len(PALETTE) - 2)
    low, high = PALETTE[k], PALETTE[k + 1]
    return "#" + "".join(f"{round(a + (b - a) * (t - k)):02x}" for a, b in zip(low, high))


CELL_W, CELL_H, CHAR_W = 96, 26, 7.2


def _tooltip(s: Standing, c: Comparison) -> str:
    """The cell's numbers as the tables say them: the median over trials and the ratio to the fastest
    with its interval over trials (never a call-level bootstrap)."""
    g = s.group
    said = "the fastest" if s.ratio is None else f"{answer.ratio_text(s.ratio)} beside the fastest median"
    rate = f"; {g.throughput_per_s:,.0f} calls/s" if g.throughput_per_s else ""
    p99 = g.histogram_stat("p99_us")
    return (f"{contender(g)} on {c.title}: median {answer.p50_us(g):,.1f} µs over {len(g.cells)} trial"
            f"{'s' * (len(g.cells) > 1)}, {said}" + (f"; p99 {p99:,.1f} µs" if p99 else "") + rate)


def _cell(x: float, y: float, s: Standing | None, c: Comparison, anchor: str) -> str:
    if s is None:
        return (f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="{MISSING}">'
                f"<title>not measured on {escape(c.title)}</title></rect>")
    ratio = 1.0 if s.ratio is None else s.ratio.estimate
    text = ("≈" if s.tied and s.ratio is not None else "") + f"{ratio:.2f}×"
    weight = ' font-weight="bold"' if s.ratio is None else ""
    return (f'<a href="#{escape(anchor)}"><title>{escape(_tooltip(s, c))}</title>'
            f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="{colour(ratio)}"/>'
            f'<text x="{x + CELL_W / 2 - 1}" y="{y + CELL_H / 2 + 3}" text-anchor="middle"{weight}>'
            f"{escape(text)}</text></a>")


def heatmap(found: list[Comparison], anchors: dict[str, str]) -> str:
    """Contenders × comparisons, each cell the ratio of its median to the fastest's. Contenders are
    the rows unless there are more comparisons than contenders (a suite): then they are the columns,
    so the picture grows down, not off the screen's right edge."""
    names = list(dict.fromkeys(contender(s.group) for c in found for s in c.ranked))
    if not names:
        return ""
    at = [{contender(s.group): s for s in c.ranked} for c in found]
    across = len(found) <= len(names)  # comparisons across the top
    rows, columns = (names, [c.title for c in found]) if across else ([c.title for c in found], names)
    left = 12 + CHAR_W * max(len(r) for r in rows)
    head = 16 + CHAR_W * 0.75 * max(len(c) for c in columns)  # column titles at 45°
    parts = [f'<text x="{left - 8}" y="{head + CELL_H * i + CELL_H / 2 + 3}" text-anchor="end">{escape(r)}</text>'
             for i, r in enumerate(rows)]
    parts += [f'<text transform="translate({left + CELL_W * (j + 0.5)},{head - 6}) rotate(-45)">{escape(t)}</text>'
              for j, t in enumerate(columns)]
    for i, j in ((i, j) for i in range(len(rows)) for j in range(len(columns))):
        k, name = (j, rows[i]) if across else (i, columns[j])
        parts.append(_cell(left + CELL_W * j, head + CELL_H * i, at[k].get(name), found[k],
                           anchors[found[k].workload]))
    width, height = left + CELL_W * (len(columns) - 0.5) + head, head + CELL_H * len(rows) + 8  # the last title
    return (f'<svg class="heatmap" role="img" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" xmlns="http://www.w3.org/2000/svg">'
            f"<title>median ÷ the fastest median, per contender and comparison</title>{''.join(parts)}</svg>")


def causes_list(found: list[causes.Cause], source: str = "") -> str:
    """The warnings by cause, a line each (as the terminal's), each contender's sentence folded under it."""
    items = []
    for cause in found:
        details = "".join(f"<li>{escape(line)}</li>" for line in cause.details())
        items.append(f'<li><details><summary>⚠ {escape(source + cause.line(10_000))}</summary>'
                     f"<ul>{details}</ul></details></li>")
    return f'<ul class="warn causes">{"".join(items)}</ul>' if items else ""


def _warnings(sources: Sequence[Any]) -> str:
    """The warnings that earned their place in each source's answer (`answer.earned`), by cause."""
    several = len(sources) > 1
    body = "".join(causes_list(causes.causes(answer.rankings(s.results)), f"{s.name}: " if several else "")
                   for s in sources)
    return body or '<p class="ok">No warnings: no cause was large enough to change this answer.</p>'


def _headline(sources: Sequence[Any]) -> str:
    """The answer in a few lines, as the terminal opens with it: per workload the mechanism to pick,
    by how much over the next and how sure; for --find-max, each search's maximum."""
    lines = []
    for source in sources:
        found = searches.searches(source.results)
        said = [s.said() for s in found] if found else headline.headline(answer.rankings(source.results))[1:]
        lines += [(f"{source.name}: " if len(sources) > 1 else "") + line for line in said]
    if not lines:
        return ""
    heading = ("the highest rate meeting the objective" if any(searches.searches(s.results) for s in sources) else
               next((headline.headline(answer.rankings(s.results))[0] for s in sources), "answer").rstrip(":"))
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return f'<div class="headline"><p class="note">{escape(heading)}</p><ul>{items}</ul></div>'


def claims(sources: Sequence[Any]) -> str:
    """A suite's answer: each published claim and its verdict here (the reasons are in the findings)."""
    rows = [(f.claim, badge(f.verdict, f.said)) for source in sources for f in source.findings]
    if not rows:
        return ""
    note = '<p class="note">Why, with the numbers: <a href="#findings">Findings</a>.</p>'
    return html.section("Claims", html.table(("claim", "verdict here"), rows, left=2, css="claims") + note, level=3)


def _unmeasured(sources: Sequence[Any]) -> str:
    cells = [c for s in sources for c in s.results.cells]
    missing = sum(1 for c in cells if c.status != "ok" or not c.calls)
    if not missing:
        return ""
    return f'<p class="note">{missing} of {len(cells)} cells not measured (the reasons are with each workload).</p>'


def _measured_on(sources: Sequence[Any]) -> str:
    env = sources[0].results.environment if sources else {}
    bits = [env.get("cpu_model"), f"{env['cpus']} CPUs" if env.get("cpus") else None,
            sources[0].results.created if sources else None]
    said = ", ".join(str(b) for b in bits if b)
    return f'<p class="note">Measured on {escape(said)}. <a href="#environment">Details</a>.</p>' if said else ""


LEGEND = ('<p class="note">Each cell: the contender\'s median latency ÷ the fastest median of that comparison '
          "over trials (green 1×, red 10× or more). ≈: not significantly slower than the fastest (its 95% "
          "interval over trials reaches 1); with fewer than 3 trials a side nothing is called significant "
          "(run with --repeat 3 or more). Grey: not in that comparison (not measured, or ranked apart as moving "
          "no data). Hover for the numbers; click for the workload's details.</p>")


def _answer(found: list[Comparison], anchors: dict[str, str]) -> str:
    if not any(c.ranked for c in found):
        return ('<p class="bad">No cell has raw samples to rank: nothing to name fastest. The cells not '
                "measured and their reasons are listed below.</p>")
    drawn = f'<div class="wide">{heatmap(found, anchors)}</div>' + LEGEND
    return (html.section("Fastest per comparison", winners(found), level=3)
            + html.section("Median ÷ fastest median", drawn, level=3, css="map"))


def summary_section(sources: Sequence[Any], grouped: dict[str, list[Group]], anchors: dict[str, str],
                    cpus: int) -> str:
    """The first section of the report: what a reader needs if they read nothing else: the answer in
    a few lines, the claims of a suite, each comparison's fastest and the heatmap (or each --find-max
    search), then the warnings by cause, their detail folded."""
    found = comparisons(grouped)
    warned = html.section("Warnings that matter", _warnings(sources), level=3)
    searched = "".join(_searches(s) for s in sources)
    body = (_headline(sources) + _measured_on(sources) + claims(sources) + searched
            + ("" if searched else f'<div class="answer">{_answer(found, anchors)}</div>') + warned
            + _unmeasured(sources))
    return html.section("Summary", body, anchor="summary", css="summary")


def _searches(source: Any) -> str:
    """--find-max: each search's maximum and its objective as typed, then its steps, folded."""
    found = searches.searches(source.results)
    if not found:
        return ""
    rows = [(s.name, s.workload, s.clients, s.slo, f"{s.max_per_s:,.0f}",
             ", ".join(f"{v:,.0f}" for v in s.found_per_s), ", ".join(f"{v:,.0f}" for v in s.capacity_per_s))
            for s in found]
    table = html.table(("contender", "workload", "clients", "objective", "max calls/s meeting it",
                        "each search's max calls/s", "closed-loop capacity calls/s"), rows, left=4)
    steps = "".join(f"<details><summary>{escape(s.name)} {escape(s.workload)} x{s.clients}: the search's steps"
                    f"</summary>{_steps(s)}</details>" for s in found)
    return html.section("Highest rate meeting the objective (--find-max)", table + steps, level=3)


def _steps(search: searches.Search) -> str:
    rows = [(k, n, f"{step.rate_per_s:,.0f}", "-" if step.calls_per_s is None else f"{step.calls_per_s:,.0f}",
             "-" if step.p99_us is None else f"{step.p99_us:,.1f}", "meets" if step.meets else "misses")
            for k, steps in enumerate(search.steps, 1) for n, step in enumerate(steps, 1)]
    return html.table(("search (trial)", "step", "offered calls/s", "measured calls/s", "p99 µs", "objective"),
                      rows, left=0)
