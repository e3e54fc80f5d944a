"""One claim's family: every cell it judges, one Holm correction over them, one verdict.

The cells of a claim (its pairs x workloads x levels x settings, and the statements of a claim
made of several) are one family. Each of the form's tests (`forms`: the claim, its direction, the
opposite, the size refuted) is Holm-corrected over the family's cells that have it; a cell then
shows the claim, its direction only (size off, or size undecided), the opposite, or nothing. A
diagnosis that invalidates a cell (client-bound, Nagle, two modes, a failed trial) or fewer than
3 trials a side leaves it in the family as showing nothing (its p-values 1: it still counts in the
correction).

The claim needs `need` of the family (every cell, 1.0, unless the seed said "in general");
with m cells, k = ceil(need x m) must show it and m - k are tolerated. Two levels follow
(`vocabulary.LEVELS`): for the claim, 3 when k cells show it, 2 when more than half do, 1
when k are in its direction and the size is refuted in one of them, else 0; against it, 2
when k cells show the opposite, 1 when more than the tolerated m - k do, else 0. The pair
names the verdict (`vocabulary.word`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rpcarena.analysis import stats
from rpcarena.analysis.stats import Ratio
from rpcarena.suites import vocabulary
from rpcarena.suites.forms import DIRECTION, Equivalent, Form, UpTo

SHOWN = "shown"
OFF = "direction only, size off"
UNSIZED = "direction only, size cannot tell"
AGAINST = "the opposite"
OUTSIDE = "not equivalent"  # the opposite of an equivalence
NOT_SIGNIFICANT = "not significant"
FEW = "too few trials"
INVALID = "cannot tell:"  # with the diagnosis
TESTS = ("claim", "direction", "against", "off")


@dataclass(frozen=True)
class Cell:
    """One cell of a claim's family: its name, its ratio (None: fewer than 3 trials a side), the
    form it is judged by, and the diagnosis that invalidates it, if any."""

    name: str
    ratio: Ratio | None
    form: Form
    invalid: str | None = None

    def tested(self) -> bool:
        return self.invalid is None and self.ratio is not None and self.ratio.judged


@dataclass(frozen=True)
class Decision:
    """A family's verdict: the word, the cells that show the claim ('3 of 4 cells', for holds in part and
    mixed), each cell's outcome and whether Holm changed it, and why in words."""

    verdict: str
    share: str
    outcomes: dict[str, str]
    changed: dict[str, str] = field(default_factory=dict)  # cell -> its outcome alone, where Holm changed it
    why: str = ""


def judge(cells: Sequence[Cell], need: float = 1.0) -> Decision:
    """The verdict of a family of cells that needs `need` of them (0.5 < need <= 1)."""
    if not 0.5 < need <= 1:
        raise ValueError(f"a claim needs more than half of its family, and at most all of it, not {need}")
    if not cells:
        return Decision(vocabulary.NOT_COMPARABLE, "", {}, why="no cell of the claim was measured")
    cells = _largest_resolved(cells)
    adjusted, alone = _corrected(cells), _corrected(cells, holm=False)
    outcomes = {c.name: _outcome(c, adjusted) for c in cells}
    changed = {c.name: was for c in cells if (was := _outcome(c, alone)) != outcomes[c.name]}
    support, refutation = levels(list(outcomes.values()), need)
    equivalence = all(c.form.equivalence for c in cells)
    verdict = vocabulary.word(support, refutation, equivalence)
    shown = sum(o == SHOWN for o in outcomes.values())
    share = f"{shown} of {len(cells)} cells" if verdict in (vocabulary.PARTLY, vocabulary.MIXED) else ""
    return Decision(verdict, share, outcomes, changed, _why(outcomes, changed, len(cells)))


def levels(outcomes: Sequence[str], need: float = 1.0) -> tuple[int, int]:
    """(for, against) the claim from its cells' outcomes (the module's rule)."""
    m = len(outcomes)
    k = math.ceil(need * m - 1e-9)
    shown, against = outcomes.count(SHOWN), outcomes.count(AGAINST) + outcomes.count(OUTSIDE)
    along = shown + outcomes.count(OFF) + outcomes.count(UNSIZED)
    support = 3 if shown >= k else 2 if 2 * shown > m else 1 if along >= k and OFF in outcomes else 0
    refutation = 2 if against >= k else 1 if against > m - k else 0
    return support, refutation


def _largest_resolved(cells: Sequence[Cell]) -> list[Cell]:
    """'Up to x' judges the family's largest effect about x and every other cell on its direction."""
    upto = [c for c in cells if isinstance(c.form, UpTo) and c.ratio is not None]
    top = max(upto, key=lambda c: c.ratio.estimate if c.ratio else 0.0, default=None)
    return [Cell(c.name, c.ratio, (c.form.largest() if c is top else DIRECTION), c.invalid)
            if isinstance(c.form, UpTo) else c for c in cells]


def _corrected(cells: Sequence[Cell], holm: bool = True) -> dict[str, dict[str, float]]:
    """Each test's p-value per cell, Holm-adjusted over the family's cells whose form asks it (raw: `holm`
    off). A cell that cannot be tested (too few trials, a diagnosis) stays in the family with p = 1, so
    losing a cell's evidence never makes the others' correction milder."""
    out: dict[str, dict[str, float]] = {c.name: {} for c in cells}
    for test in TESTS:
        raw = {c.name: _p(c, test) for c in cells if test in c.form.tests}
        for name, p in (stats.holm_adjusted(raw) if holm else raw).items():
            out[name][test] = p
    return out


def _p(cell: Cell, test: str) -> float:
    if not cell.tested():
        return 1.0
    assert cell.ratio is not None
    run: Callable[[Ratio], float | None] = getattr(cell.form, test)
    found = run(cell.ratio)
    return 1.0 if found is None else found


def _outcome(cell: Cell, adjusted: dict[str, dict[str, float]]) -> str:
    if cell.invalid:
        return f"{INVALID} {cell.invalid}"
    if not cell.tested():
        return FEW
    p = adjusted[cell.name]

    def significant(test: str) -> bool:
        return p.get(test, 1.0) < stats.ONE_SIDED
    if significant("against"):
        return OUTSIDE if isinstance(cell.form, Equivalent) else AGAINST
    if significant("claim"):
        return SHOWN
    if significant("direction") and cell.form.sized:
        return OFF if significant("off") else UNSIZED
    return NOT_SIGNIFICANT


def _why(outcomes: dict[str, str], changed: dict[str, str], m: int) -> str:
    """'shown for 2 of 3 cells (a, b); not significant for c; Holm over the 3 cells: b shown alone'."""
    by: dict[str, list[str]] = {}
    for name, said in outcomes.items():
        by.setdefault(said, []).append(name)
    parts = [f"{said} for {names[0]}" if m == 1 else f"{said} for every cell" if len(names) == m
             else f"{said} for {len(names)} of {m} cells ({', '.join(names)})" for said, names in by.items()]
    if changed:
        parts.append(f"after a Holm correction over the {m} cells; alone: "
                     + ", ".join(f"{name} {was}" for name, was in changed.items()))
    return "; ".join(parts)
