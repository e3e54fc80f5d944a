"""The findings of a suite, in the HTML report and in the terminal: each published claim beside
what this run measured, one row per pair or cell (its ratio, 95% interval and significance)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from rich.console import Group
from rich.markup import escape as rich_escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from rpcarena.report import html
from rpcarena.suites.family import SHOWN
from rpcarena.suites.model import Finding, Measured
from rpcarena.suites.rules import BESIDE
from rpcarena.suites.vocabulary import (
    EQUIVALENT,
    FAILS,
    HOLDS,
    MAGNITUDE,
    MIXED,
    NOT_COMPARABLE,
    NOT_EQUIVALENT,
    OPPOSITE,
    PARTLY,
    UNDECIDED,
)

VERDICT_CSS = {HOLDS: "ok", EQUIVALENT: "ok", MAGNITUDE: "part", PARTLY: "part", MIXED: "part", FAILS: "bad",
               OPPOSITE: "bad", NOT_EQUIVALENT: "bad", UNDECIDED: "na", NOT_COMPARABLE: "na"}
VERDICT_STYLE = {HOLDS: "green", EQUIVALENT: "green", MAGNITUDE: "yellow", PARTLY: "yellow", MIXED: "yellow",
                 FAILS: "red", OPPOSITE: "red", NOT_EQUIVALENT: "red"}
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


CLAIM_HEADERS = ("claim", "verdict", "deciding ratio [95% interval over trials]", "the seed's numbers")


def _claim_table(number: int, f: Finding) -> str:
    """One claim as its own table, as the terminal prints it: the claim, its verdict and the ratio that
    decides it (interval over trials), then the evidence rows, why and the rule beneath."""
    head = html.table(CLAIM_HEADERS, [(f.claim, badge(f.verdict, f.said), deciding(f), f.seed)], left=4,
                      css="claim")
    beneath = html.table(("why", "judged by"), [(_lines(f.why.splitlines()), f.rule or "-")], left=2)
    return html.section(f"{number}. {f.claim}", head + _measured(f.measured) + beneath, level=3)


def findings_section(sources: Sequence[Any]) -> str:
    body = ""
    for source in sources:
        if not source.findings and not source.missing:
            continue
        body += "".join(_claim_table(number, f) for number, f in enumerate(source.findings, 1))
        body += _missing(source.missing)
    return html.section("findings", body, anchor="findings") if body else ""


def _measured_table(rows: Sequence[Measured]) -> Table | str:
    if not rows:
        return "-"
    table = Table(box=None, show_header=True, header_style="dim", pad_edge=False)
    for name in MEASURED_HEADERS[:2]:
        table.add_column(name, ratio=1)  # wrapped between words, never inside one
    table.add_column("ratio [95% interval]", no_wrap=True)
    table.add_column(MEASURED_HEADERS[3], ratio=1)
    for m in rows:
        table.add_row(*(rich_escape(text) for text in _columns(m)))
    return table


def findings_table(found: Sequence[Finding], wide: bool = False) -> Table | Group:
    """The findings for the terminal: one line per claim (verdict, deciding ratio, claim) with its
    evidence beneath; with `wide`, the full table (the claim, its measured rows, the verdict with
    why and the rule)."""
    return _wide_table(found) if wide else Group(Text("findings", style="bold"), *(
        line for number, f in enumerate(found, 1) for line in _claim_lines(number, f)))


def deciding(f: Finding) -> str:
    """The ratio that decides the verdict: the first judged row that does not simply show the claim (it
    stops or qualifies it), else the first; '(1 of 4)' when there are more."""
    rows = [m for m in f.measured if m.ratio is not None and not shown_beside(m)]
    if not rows:
        return "-"
    judged = [m for m in rows if m.significance] or rows
    row = next((m for m in judged if m.significance != SHOWN), judged[0])
    return row.shown + (f" ({rows.index(row) + 1} of {len(rows)})" if len(rows) > 1 else "")


def shown_beside(m: Measured) -> bool:
    """A row shown beside the judged ones (`rules.Beside`, the median beside a mean), never the one that
    decides a verdict."""
    return m.significance.startswith(BESIDE)


INDENT = 4


def _claim_lines(number: int, f: Finding) -> list[Text | Padding]:
    """'3. holds  2.00x [1.90, 2.10]  the claim...' on one line (cut to the console's width), then the
    measured rows and why, wrapped at word boundaries."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append(f"{number:>2}. ")
    head.append(f.said, style=f"bold {VERDICT_STYLE.get(f.verdict, '')}".strip())
    head.append(f"  {deciding(f)}  ", style="cyan")
    head.append(f.claim)
    body = [m.text() for m in f.measured] + [f"why: {line}" for line in f.why.splitlines()]
    return [head] + [Padding(Text(line, overflow="fold"), (0, 0, 0, INDENT)) for line in body]


def _wide_table(found: Sequence[Finding]) -> Table:
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
