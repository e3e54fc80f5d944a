"""The answer first, at the top of the HTML report: the fastest in each comparison, a contenders ×
comparisons heatmap of the ratio to the fastest median, and the warnings that change how to read them.

A comparison is one workload at one concurrency over one network (the numbers table's scope).
The heatmap is drawn here as inline SVG: a few rectangles, each with a <title> tooltip and a link
to its workload's details, where a plotting library would add weight for nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from rpcarena.analysis import groups as groups_of
from rpcarena.analysis import stability, stats
from rpcarena.analysis.groups import Group
from rpcarena.report import answer, html
from rpcarena.report.findings import badge

SHOWN_WARNINGS = 6
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
    headers = ("comparison", "fastest (median)", "runner-up (median)", "its ratio over trials [95% CI]",
               "floor (median)")
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


def notable_warnings(grouped: dict[str, list[Group]], found: list[Comparison], cpus: int) -> list[str]:
    """Each kind of warning once, with whom it concerns; those about a comparison's fastest or
    runner-up first (they can change the answer), then the most widespread."""
    leaders = {id(s.group) for c in found for s in c.ranked[:2]}
    every = [g for groups in grouped.values() for g in groups]
    texts: dict[str, list[str]] = {}
    whom: dict[str, list[Group]] = {}
    for g in every:
        for text in stability.warnings(g, cpus):
            texts.setdefault(_kind(text), []).append(text.split(" (trial ")[0])
            whom.setdefault(_kind(text), []).append(g)
    ordered = sorted(whom, key=lambda kind: (not any(id(g) in leaders for g in whom[kind]), -len(whom[kind])))
    return [texts[kind][0] + (" (the numbers vary)" if len(set(texts[kind])) > 1 else "")
            + f": {_whom(whom[kind], len(every))}" for kind in ordered]


def _kind(warning: str) -> str:
    """A warning without its numbers: 'high CV 3.00' and 'high CV 2.62' are one kind."""
    return re.sub(r"\d[\d.,%]*", "#", warning.split(" (trial ")[0])


def _whom(groups: list[Group], total: int) -> str:
    if len(groups) == total and total > 1:
        return f"all {total} results"
    names = [f"{g.label} on {g.workload} x{g.clients}" for g in groups]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _warnings_list(lines: list[str]) -> str:
    if not lines:
        return '<p class="ok">No warnings: no check of analysis/stability.py fired.</p>'
    shown = "".join(f'<li class="warn">⚠ {escape(line)}</li>' for line in lines[:SHOWN_WARNINGS])
    more = (f'<p class="note">{len(lines) - SHOWN_WARNINGS} more in the tables below.</p>'
            if len(lines) > SHOWN_WARNINGS else "")
    return f"<ul>{shown}</ul>{more}"


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
          "(run with --repeat 3 or more). Hover for the numbers; click for the workload's details.</p>")


def _answer(found: list[Comparison], anchors: dict[str, str]) -> str:
    if not any(c.ranked for c in found):
        return ('<p class="bad">No cell has raw samples to rank: nothing to name fastest. The cells not '
                "measured and their reasons are listed below.</p>")
    drawn = f'<div class="wide">{heatmap(found, anchors)}</div>' + LEGEND
    return (html.section("Fastest per comparison", winners(found), level=3)
            + html.section("Median ÷ fastest median", drawn, level=3, css="map"))


def summary_section(sources: Sequence[Any], grouped: dict[str, list[Group]], anchors: dict[str, str],
                    cpus: int) -> str:
    """The first section of the report: what a reader needs if they read nothing else."""
    found = comparisons(grouped)
    warned = html.section("Warnings that matter", _warnings_list(notable_warnings(grouped, found, cpus)), level=3)
    body = (_measured_on(sources) + claims(sources) + f'<div class="answer">{_answer(found, anchors)}</div>'
            + warned + _unmeasured(sources))
    return html.section("Summary", body, anchor="summary", css="summary")
