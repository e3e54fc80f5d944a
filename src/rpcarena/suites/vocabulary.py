"""The verdict words: one closed set for claims and questions alike, each with one meaning.

A claim judges a family of cells (its pairs x workloads x levels x settings); after one Holm
correction over the family (`suites.family`), each cell shows the claim, shows only its direction
(the seed's size refuted, or not decided), shows the opposite, or shows nothing. The claim needs a
share of the family (every cell unless its seed said "in general"); `tolerated` is what is left.
A verdict is a pair of levels, one for the claim and one against it, so that weaker evidence (wider
intervals) can only lower both: a verdict never reads better than its evidence. docs/suites.md
defines the words with these meanings (a test holds the two alike).
"""

from __future__ import annotations

HOLDS = "holds"
PARTLY = "holds in part"
MAGNITUDE = "direction holds, magnitude differs"
EQUIVALENT = "equivalent"
MIXED = "mixed"
FAILS = "does not hold"
NOT_EQUIVALENT = "not equivalent"
OPPOSITE = "opposite"
UNDECIDED = "cannot tell"
NOT_COMPARABLE = "not comparable"

MEANINGS = {
    HOLDS: "the share of the family the claim needs shows it after the Holm correction, of the seed's size "
           "where it gave one",
    PARTLY: "more than half of the family shows it after correction, but less than the claim needs, and no "
            "more cells show the opposite than the claim tolerates",
    MAGNITUDE: "the share the claim needs is significantly in its direction after correction, no more than half "
               "shows it of the seed's size, and that size is refuted (an interval wholly outside it) in at least "
               "one cell",
    EQUIVALENT: "an equivalence claim holds: the share the claim needs lies within its margin after correction "
                "(two one-sided tests)",
    MIXED: "more than half of the family shows the claim and more cells show the opposite than the claim "
           "tolerates",
    FAILS: "more cells show the opposite (for an equivalence claim: lie outside the margin) than the claim "
           "tolerates but fewer than it needs, and no more than half shows the claim",
    NOT_EQUIVALENT: "an equivalence claim's needed share lies outside its margin after correction",
    OPPOSITE: "the share the claim needs shows the opposite after correction: the reverse claim holds",
    UNDECIDED: "none of the above: too few cells decided either way (not significant, an interval across "
               "the seed's size, too few trials, or a diagnosis that invalidates the cell)",
    NOT_COMPARABLE: "this run has no cell the claim can be judged on: a system or setting missing, a cell from "
                    "another link, or an absolute line off the seed's own network (the reason is given)",
}
VERDICTS = tuple(MEANINGS)

# How far each verdict goes for the claim and against it (support, refutation): weaker evidence
# lowers both or neither, never one at the other's cost (tests/suites: the Hypothesis properties).
LEVELS = {HOLDS: (3, 0), EQUIVALENT: (3, 0), PARTLY: (2, 0), MAGNITUDE: (1, 0), MIXED: (2, 1),
          UNDECIDED: (0, 0), FAILS: (0, 1), OPPOSITE: (0, 2), NOT_EQUIVALENT: (0, 2)}


def word(support: int, refutation: int, equivalence: bool) -> str:
    """The verdict of these levels; an equivalence claim says equivalent and not equivalent."""
    if equivalence and (support, refutation) == (3, 0):
        return EQUIVALENT
    if equivalence and (support, refutation) == (0, 2):
        return NOT_EQUIVALENT
    return next(w for w, levels in LEVELS.items() if levels == (support, refutation)
                and w not in (EQUIVALENT, NOT_EQUIVALENT))
