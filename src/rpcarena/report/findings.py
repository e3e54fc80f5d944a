"""The findings of a suite, in the HTML report and in the terminal: each published claim beside
what this run measured, one row per pair or cell (its ratio, 95% interval and significance)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from rpcarena.report import html
from rpcarena.report.terminal import hanging
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


def findings_table(found: Sequence[Finding], wide: bool = False) -> Group:
    """The findings for the terminal: per claim its number, verdict, deciding ratio and the claim,
    then its measured rows and why, each wrapped between words at any width; with `wide`, also the
    seed's numbers and the rule it was judged by."""
    return Group(Text("findings", style="bold"),
                 *(line for number, f in enumerate(found, 1) for line in _claim_lines(number, f, wide)))


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


ROW = "- "  # a measured row, why, the seed's numbers: under the claim, apart from its wrapped lines


def _claim_lines(number: int, f: Finding, wide: bool = False) -> list[Padding | Table]:
    """' 3. holds  2.00x [1.90, 2.10]  the claim...', wrapped under the verdict, then a row per measured
    pair or cell and why (with `wide`, the seed's numbers and the rule), each wrapped under its first word."""
    head = Text()
    head.append(f.said, style=f"bold {VERDICT_STYLE.get(f.verdict, '')}".strip())
    head.append(f"  {deciding(f)}  ", style="cyan")
    head.append(f.claim)
    body = [m.text() for m in f.measured] + [f"why: {line}" for line in f.why.splitlines()]
    if wide:
        body += [f"the seed's numbers: {f.seed}"] * bool(f.seed) + [f"judged by: {f.rule}"] * bool(f.rule)
    mark = f"{number:>2}. "
    return [hanging(mark, head)] + [Padding(hanging(ROW, line), (0, 0, 0, len(mark))) for line in body]
