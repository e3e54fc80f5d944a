"""The findings section of a suite's report: each published claim beside what this run measured."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from rpcarena.report import html
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, PARTLY, UNDECIDED

VERDICT_CSS = {HOLDS: "ok", PARTLY: "part", FAILS: "bad", UNDECIDED: "na", NOT_COMPARABLE: "na"}


def badge(verdict: str, said: str) -> html.Markup:
    """The verdict in words, coloured by what it is (holds, partly, fails, ...)."""
    return html.Markup(f'<span class="verdict {VERDICT_CSS.get(verdict, "")}">{escape(said)}</span>')


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
        rows = [(f.claim, f.seed, _lines(f.measured), badge(f.verdict, f.said), _lines(f.why.splitlines()),
                 f.rule or "-") for f in source.findings]
        body += html.table(("claim", "the seed's numbers", "measured here", "verdict", "why", "judged by"), rows,
                           left=6)
        body += _missing(source.missing)
    return html.section("findings", body, anchor="findings") if body else ""
