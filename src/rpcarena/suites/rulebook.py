"""A suite's rules in words, without measuring (`rpcarena suite NAME --rules`): every claim with its
form, operands, band or margin, setting and family, so a reader can check a rule before a long run."""

from __future__ import annotations

from rpcarena.suites import vocabulary
from rpcarena.suites.model import Suite


def lines(suite: Suite) -> list[str]:
    """The suite's claims, each with its rule (`rules.Rule.describe`), then the verdict words."""
    out = [f"rpcarena suite {suite.name}: {suite.seed}; {len(suite.claims)} claims, each a family of cells with "
           "one Holm correction (docs/suites.md, 'How a claim is judged')"]
    for number, claim in enumerate(suite.claims, 1):
        out.append(f"{number}. {'question: ' if claim.question else ''}{claim.text}")
        out.append(f"   the seed: {claim.seed}")
        out += [f"   {line}" for line in claim.rule.describe()]
    out.append("the verdicts, one meaning each:")
    out += [f"   {word}: {meaning}" for word, meaning in vocabulary.MEANINGS.items()]
    return out
