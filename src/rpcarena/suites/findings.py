"""Each claim of a suite beside what a run measured, with its verdict."""

from __future__ import annotations

from rpcarena.results import Results
from rpcarena.seeds import SUITES
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.model import Finding, Suite


def findings(suite: Suite, results: Results, missing: dict[str, str]) -> list[Finding]:
    """Every claim of the suite beside what this run measured, with a verdict."""
    evidence = Evidence(results, missing)
    out = []
    for claim in suite.claims:
        judged = claim.judge(evidence)
        out.append(Finding(claim.text, claim.seed, judged.measured, judged.verdict, judged.says(claim.question),
                           judged.why, judged.rule))
    return out


def findings_of(results: Results) -> tuple[list[Finding], dict[str, str]]:
    """The findings and missing systems of a suite's results document; nothing for a plain run."""
    meta = results.suite or {}
    suite = SUITES.get(meta.get("name", ""))
    if suite is None:
        return [], {}
    missing = meta.get("missing", {})
    return findings(suite, results, missing), missing
