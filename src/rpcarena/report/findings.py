"""The findings section of a suite's report: each published claim beside what this run measured."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from rpcarena.report import html

VERDICT_CSS = {"holds": "ok", "does not hold": "bad", "not comparable here": "na"}


def _verdict(text: str) -> html.Markup:
    return html.Markup(f'<span class="verdict {VERDICT_CSS.get(text, "")}">{escape(text)}</span>')


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
        rows = [(f.claim, f.seed, f.measured, _verdict(f.verdict), f.why) for f in source.findings]
        body += html.table(("claim", "the seed's numbers", "measured here", "verdict", "why"), rows, left=5)
        body += _missing(source.missing)
    return html.section("findings", body, anchor="findings") if body else ""
