"""Reports: one self-contained HTML page per run (or several), and the same figures as PNG/SVG.

    from rpcarena import report, results
    report.write_html([report.Source("run", results.load("results/arena.json"))], "report.html")
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rpcarena.analysis.groups import Group, group
from rpcarena.files import output
from rpcarena.report import answer, causes, figures, html, overview, summary, time_goes
from rpcarena.report.context import context_section, not_measured
from rpcarena.report.findings import findings_section
from rpcarena.report.overview import summary_section
from rpcarena.report.terminal import duration
from rpcarena.results import Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Source", "write_html", "write_figures", "FORMATS"]

FORMATS = ("html", "png", "svg")
CAPTIONS = {
    "boxplot": "Boxplots from the raw samples of each contender.",
    "intervals": "Bars: each mechanism's median over the best's of its comparison; error bars: its 95% interval "
                 "over trials (the tables' ratio; fewer than 3 trials a side: none).",
    "histogram": "Latency histograms of the raw samples, log scales.",
    "scatter": "Each sampled call's latency against its index in the measured phase, a panel per contender.",
    "over_time": "Each cell over time, from its interval histograms (a second each unless --interval): a row per "
                 "contender, its trials in colours; calls/s, p50, p99, and failed calls, bytes and the server's "
                 "memory where an interval has them; the warm-up before the phase shaded, not measured. Cells of "
                 "fewer than three intervals are left out.",
    "clients": "Throughput and p99 against the number of concurrent clients.",
    "cpu": "CPU time per call of the client and server processes (user + system).",
    "bytes": "TCP payload bytes per call, both directions, from kernel counters on the server port.",
}


@dataclass
class Source:
    """One results document and the name its contenders carry when several are reported together."""

    name: str
    results: Results
    findings: list[Any] = field(default_factory=list)  # suite findings (rpcarena.suites.Finding)
    missing: dict[str, str] = field(default_factory=dict)  # system -> why it did not run


def by_workload(sources: Sequence[Source], trimmed: bool) -> dict[str, list[Group]]:
    """Each comparison's groups: by workload, as the terminal ranks them (the targets of one `rpcarena
    target` run together, whatever each calls; --find-max's probes, steps of a search, left out)."""
    prefix = len(sources) > 1
    found: dict[str, list[Group]] = {}
    for source in sources:
        grouped = group(answer.ranked_cells(source.results), trimmed, source.name if prefix else "")
        compared = answer.compared_as(source.results)
        driven: dict[str, set[str]] = {}
        for g in grouped:
            driven.setdefault(g.contender, set()).add(g.cells[0].client)
        for g in grouped:  # a contender driven by several clients (--client py,go): each label names its own
            g.named_client = len(driven[g.contender]) > 1
            found.setdefault(compared.get(g.workload, g.workload), []).append(g)
    return found


def _cpus(sources: Sequence[Source]) -> int:
    env = sources[0].results.environment if sources else {}
    return len(env.get("cpus_allowed") or []) or env.get("cpus") or 1


def _workload(workload: str, groups: list[Group], sources: Sequence[Source], cpus: int, anchor: str) -> str:
    in_suite = any(s.results.suite for s in sources)
    body = summary.numbers(groups, cpus, _warned(workload, sources), in_suite) + _time_goes(workload, sources)
    for key, draw in figures.FIGURES.items():
        fig = draw(groups)
        if fig is not None:
            body += html.figure(fig, CAPTIONS[key])
    body += not_measured(sources, workload)
    return html.section(workload, body, anchor=anchor)


def _warned(compared: str, sources: Sequence[Source]) -> str:
    """The warnings of one comparison's rankings (those that earned their place), by cause, folded."""
    several = len(sources) > 1
    found = [(s, causes.causes([r for r in answer.rankings(s.results) if r.workload == compared])) for s in sources]
    return "".join(overview.causes_list(listed, f"{s.name}: " if several else "") for s, listed in found)


def _time_goes(workload: str, sources: Sequence[Source]) -> str:
    """Where the time of each mechanism's call goes, for a run of the user's own schema."""
    body = ""
    for source in (s for s in sources if time_goes.shown_for(s.results, workload)):
        for found in time_goes.of([r for r in answer.rankings(source.results) if r.workload == workload],
                                  source.results):
            rows = [time_goes.cells(part, duration) for part in found.parts]
            notes = "".join(f'<p class="note">{escape(line)}</p>' for line in [found.workload, *found.notes])
            body += html.section(f"{time_goes.TITLE}: {found.title}", html.table(time_goes.HEADERS, rows) + notes,
                                 level=3)
    return body


def _contents(sources: Sequence[Source], anchors: dict[str, str], body: str) -> str:
    entries = [("summary", "Summary")]
    entries += [("findings", "Findings")] if 'id="findings"' in body else []
    entries += [(anchor, workload) for workload, anchor in anchors.items()]
    return html.contents(entries + [("environment", "Environment and configuration")])


def write_html(sources: Sequence[Source], out: str | os.PathLike[str], trimmed: bool = False,
               title: str = "rpcarena report", force: bool = False, option: str = "--report") -> Path:
    """Write the page (never through a link, nor over a results document without `force`); return its path."""
    cpus = _cpus(sources)
    grouped = by_workload(sources, trimmed)
    anchors = {w: f"w-{s}" for w, s in html.slugs(list(grouped)).items()}
    details = findings_section(sources)
    for workload, groups in grouped.items():
        details += _workload(workload, groups, sources, cpus, anchors[workload])
    details += not_measured(sources, None, exclude=set(grouped))
    details += context_section(sources)
    top = summary_section(sources, grouped, anchors, cpus) + _contents(sources, anchors, details)
    return output.write(out, html.page(title, top + details), option=option, force=force)


def write_figures(sources: Sequence[Source], out_dir: str | os.PathLike[str], fmt: str,
                  trimmed: bool = False, force: bool = False) -> list[Path]:
    """Every figure of the report as <workload>-<chart>.<fmt> in out_dir, the workload's name made a
    safe file name (a target's method or URL has '/' in it) and distinct from every other's."""
    target = output.folder(out_dir, "-o")
    grouped = by_workload(sources, trimmed)
    names = html.slugs(list(grouped))
    written = []
    for workload, groups in grouped.items():
        for key, draw in figures.FIGURES.items():
            fig = draw(groups)
            if fig is not None:
                path = target / f"{names[workload]}-{key}.{fmt}"
                _save(fig, path, fmt, force)
                written.append(path)
    return written


def _save(fig: Figure, path: Path, fmt: str, force: bool) -> None:
    """One figure, written as every output is (a generated name over a results document is refused too)."""
    if fmt != "svg":
        with output.writing(path, option="-o", force=force) as out:
            fig.savefig(out, format=fmt, dpi=150)
        return
    text = io.StringIO()  # the SVG file keeps the page's hover tooltips
    fig.savefig(text, format="svg")
    output.write(path, figures.with_tooltips(text.getvalue()), option="-o", force=force)
