"""Suites: each seed's design as one command (`rpcarena suite NAME`), with its claims judged.

A suite is data in one module (parts to run, claims with the seed's numbers); the
shared model is in `model`, the ways to judge a claim in `judges`, running in `runner`.
"""

from __future__ import annotations

from rpcarena.results import Results
from rpcarena.suites import cs6650, hprpc2016, infobip2016, predictions, usp2018
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.model import Claim, Finding, Part, Suite

__all__ = ["SUITES", "Claim", "Finding", "Part", "Suite", "findings", "findings_of"]

SUITES: dict[str, Suite] = {s.name: s for s in (usp2018.SUITE, predictions.SUITE, hprpc2016.SUITE,
                                                 cs6650.SUITE, infobip2016.SUITE)}


def findings(suite: Suite, results: Results, missing: dict[str, str]) -> list[Finding]:
    """Every claim of the suite beside what this run measured, with a verdict."""
    evidence = Evidence(results, missing)
    out = []
    for claim in suite.claims:
        judged = claim.judge(evidence)
        out.append(Finding(claim.text, claim.seed, judged.measured, judged.verdict, judged.why))
    return out


def findings_of(results: Results) -> tuple[list[Finding], dict[str, str]]:
    """The findings and missing systems of a suite's results document; nothing for a plain run."""
    meta = results.extra.get("suite") or {}
    suite = SUITES.get(meta.get("name", ""))
    if suite is None:
        return [], {}
    missing = meta.get("missing", {})
    return findings(suite, results, missing), missing
