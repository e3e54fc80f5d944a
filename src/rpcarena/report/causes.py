"""The warnings of an answer grouped by cause: one line per kind of warning, with its figures and the
cells it touched ('other load (0.80-1.93 CPUs) on 14 of 18 cells: measure on a quiet machine'), and
each contender's own sentence as the detail (-v, the HTML's folded lists, JSON).

Only the warnings that earned their place in a ranking (`answer.earned`) are here: the terminal, the
HTML summary and `show --format json` read the same ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from rpcarena.analysis import stability
from rpcarena.analysis.stability import Diagnosis
from rpcarena.report.answer import Entry, Ranking

# What a suite's reader can do instead, where a cause's usual fix names an option `suite` does not have
SUITE_FIXES = {"few_calls": "a full run (without --quick) makes 200 calls a client",
               "unsupported_percentiles": "a full run (without --quick) makes 200 calls a client"}


@dataclass(frozen=True)
class Touched:
    """One contender of one ranking a cause touched, and what it said there."""

    ranking: Ranking
    entry: Entry
    diagnosis: Diagnosis

    @property
    def cells(self) -> int:
        """The cells (trials) it fired in: those named, or the whole group for a group's warning."""
        return len(self.diagnosis.trials) or len(self.entry.group.cells)


@dataclass(frozen=True)
class Cause:
    """A kind of warning over the whole answer: every contender it touched, in ranking order."""

    check: str
    touched: list[Touched]
    total_cells: int  # the cells the rankings rank, what "14 of 18 cells" counts against
    rankings: int = 1  # how many rankings the answer has: with several, a line names the one it means

    @property
    def kind(self) -> str:
        return self.touched[0].diagnosis.kind

    @property
    def cells(self) -> int:
        return sum(t.cells for t in self.touched)

    def whom(self, counted: bool = False) -> str:
        """'rest-fastapi (usp.distance)', 'grpc-py, rest-fastapi', or '14 of 18 cells' when more
        contenders than a line can name (or when `counted`)."""
        names = list(dict.fromkeys(t.entry.name for t in self.touched))
        if counted or len(names) > 3:
            return f"{self.cells} of {self.total_cells} cells"
        workloads = list(dict.fromkeys(t.ranking.workload for t in self.touched))
        return ", ".join(names) + (f" ({', '.join(workloads)})" if self.several else "")

    @property
    def several(self) -> bool:
        return self.rankings > 1

    def line(self, width: int) -> str:
        """The cause in one line of at most `width` columns where it can be: its name and figures, whom
        it touched (one or two contenders by name, more as a count of cells), what to do; what gives
        way first is the fix where a name would, else the names."""
        said = stability.cause(self.check)
        figures = said.figures([f for t in self.touched for f in t.diagnosis.figures])
        head = f"{said.label} ({figures})" if figures else said.label
        named, counted = self.whom(), self.whom(counted=True)
        few = len({t.entry.name for t in self.touched}) <= 2  # names say more than a count: keep them first
        fix = self.fix
        tries = [f"{head} on {named}: {fix}"] + ([f"{head} on {named}"] if few else [])
        tries += [f"{head} on {counted}: {fix}", f"{head} on {named}", f"{head} on {counted}"]
        return next((t for t in tries if len(t) <= width), tries[-1])

    @property
    def fix(self) -> str:
        """What to do: the cause's usual fix, or a suite's where the usual one names an option it lacks."""
        if any(t.ranking.suite for t in self.touched) and self.check in SUITE_FIXES:
            return SUITE_FIXES[self.check]
        return stability.cause(self.check).fix

    def details(self) -> list[str]:
        """Each contender's own sentence: 'usp.distance, grpc-py: other load: ...'."""
        several = self.several
        return [(f"{t.ranking.title()}, " if several else "") + f"{t.entry.name}: {t.diagnosis.text}"
                for t in self.touched]


def causes(rankings: list[Ranking]) -> list[Cause]:
    """Every cause of the answer's warnings, those touching a ranking's first two first (they can
    change which to pick), then the most widespread."""
    found: dict[str, list[Touched]] = {}
    for ranking in rankings:
        for entry in ranking.entries:
            for d in entry.warnings:
                found.setdefault(d.check, []).append(Touched(ranking, entry, d))
    total = sum(len(e.group.cells) for r in rankings for e in r.entries)
    out = [Cause(check, touched, total, len(rankings)) for check, touched in found.items()]
    return sorted(out, key=lambda c: (not any(_leads(t) for t in c.touched), -c.cells))


def _leads(t: Touched) -> bool:
    """Whether the contender is its ranking's first or second: the pair the answer picks between."""
    return any(e is t.entry for e in t.ranking.entries[:2])
