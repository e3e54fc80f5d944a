"""Each claim of a suite beside what a run measured, with its verdict."""

from __future__ import annotations

from collections.abc import Mapping

from rpcarena.results import Results
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.model import Finding, Suite


def findings(suite: Suite, results: Results, missing: dict[str, str]) -> list[Finding]:
    """Every claim of the suite beside what this run measured, with a verdict."""
    evidence = Evidence(results, missing)
    out = []
    for claim in suite.claims:
        judged = claim.rule(evidence)
        out.append(Finding(claim.text, claim.seed, judged.measured, judged.verdict, judged.says(), judged.why,
                           judged.rule))
    return out


def findings_of(results: Results, suites: Mapping[str, Suite]) -> tuple[list[Finding], dict[str, str]]:
    """The findings and missing systems of a suite's results document, its suite found by name in
    `suites` (`rpcarena.seeds.SUITES`: the seeds define the suites, so they are handed in); nothing
    for a plain run."""
    meta = results.suite or {}
    suite = suites.get(meta.get("name", ""))
    if suite is None:
        return [], {}
    missing = meta.get("missing", {})
    return findings(suite, results, missing), missing
