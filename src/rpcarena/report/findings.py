"""The findings of a suite, in the HTML report and in the terminal: each published claim beside
what this run measured, one row per pair or cell (its ratio, 95% interval and significance)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from rich.markup import escape as rich_escape
from rich.table import Table

from rpcarena.report import html
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, PARTLY, UNDECIDED, Finding, Measured

VERDICT_CSS = {HOLDS: "ok", PARTLY: "part", FAILS: "bad", UNDECIDED: "na", NOT_COMPARABLE: "na"}
VERDICT_STYLE = {HOLDS: "green", PARTLY: "yellow", FAILS: "red"}
MEASURED_HEADERS = ("pair or cell", "statistic", "ratio [95% interval] or value", "significance")


def _columns(m: Measured) -> tuple[str, str, str, str]:
    return m.what, m.statistic, m.shown, m.significance


def badge(verdict: str, said: str) -> html.Markup:
    """The verdict in words, coloured by what it is (holds, partly, fails, ...)."""
    return html.Markup(f'<span class="verdict {VERDICT_CSS.get(verdict, "")}">{escape(said)}</span>')


def _measured(rows: Sequence[Measured]) -> html.Markup:
    if not rows:
        return html.Markup("-")
    cells = ((m.what, m.statistic, html.Markup(f'<span style="white-space:nowrap">{escape(m.shown)}</span>'),
              m.significance) for m in rows)
    return html.Markup(html.table(MEASURED_HEADERS, cells, left=2, css="measured"))


def _lines(lines: Sequence[str]) -> html.Markup:
    return html.Markup("<br>".join(escape(line) for line in lines) or "-")


def _missing(missing: dict[str, str]) -> str:
    if not missing:
        return ""
    rows = [(system, why) for system, why in missing.items()]
    return html.section("missing here (not run, listed so nothing is skipped silently)",
                        html.table(("system or workload", "why"), rows, left=2), level=3)


def findings_section(sources: Sequence[Any]) -> str:
    body = ""
    for source in sources:
        if not source.findings and not source.missing:
            continue
        rows = [(f.claim, f.seed, _measured(f.measured), badge(f.verdict, f.said), _lines(f.why.splitlines()),
                 f.rule or "-") for f in source.findings]
        body += html.table(("claim", "the seed's numbers", "measured here", "verdict", "why", "judged by"), rows,
                           left=6)
        body += _missing(source.missing)
    return html.section("findings", body, anchor="findings") if body else ""


def _measured_table(rows: Sequence[Measured]) -> Table | str:
    if not rows:
        return "-"
    table = Table(box=None, show_header=True, header_style="dim", pad_edge=False)
    for name in MEASURED_HEADERS[:2]:
        table.add_column(name, overflow="fold", ratio=1)
    table.add_column("ratio [95% interval]", no_wrap=True)
    table.add_column(MEASURED_HEADERS[3], overflow="fold", ratio=1)
    for m in rows:
        table.add_row(*(rich_escape(text) for text in _columns(m)))
    return table


def findings_table(found: Sequence[Finding]) -> Table:
    """The findings for the terminal: the claim, its measured rows, and the verdict with why and the rule."""
    table = Table(title="findings", header_style="bold", show_lines=True, expand=True)
    table.add_column("claim", overflow="fold", ratio=2)
    table.add_column("measured here", overflow="fold", ratio=5)
    table.add_column("verdict", overflow="fold", ratio=3)
    for f in found:
        style = VERDICT_STYLE.get(f.verdict, "bold")
        judged_by = f"\n[dim]judged by: {rich_escape(f.rule)}[/]" if f.rule else ""
        table.add_row(rich_escape(f.claim), _measured_table(f.measured),
                      f"[bold {style}]{rich_escape(f.said)}[/]: {rich_escape(f.why)}{judged_by}")
    return table
