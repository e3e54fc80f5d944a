"""A claim's rule: its form, its operands, the cells it judges (its family), their setting, and
what is shown beside them; judged on a run's evidence, or printed without one (`suite --rules`).

A rule is data: each cell of its family is a `Comparison` (slower/faster of one statistic, in one
setting, judged by one form of `forms`) or a `Contrast` (how such a ratio changed between two
settings), both in `operands`. `Rule.cells` lists every measured cell the rule reads, so a run can
be cut to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rpcarena.analysis import stability, stats
from rpcarena.suites import vocabulary
from rpcarena.suites.evidence import TRIMMED_MEAN, Evidence
from rpcarena.suites.family import OFF, UNSIZED, Cell, Decision, judge
from rpcarena.suites.forms import DIRECTION, Form, Ordering
from rpcarena.suites.model import Judgement, Measured
from rpcarena.suites.operands import MEASURES, Comparison, Measure, Member, NeededCell
from rpcarena.suites.setting import LOOPBACK, Setting


@dataclass(frozen=True)
class Beside:
    """A ratio shown beside the judged ones and not judged: the seed's own setup beside a tuned one, a
    keep-alive client beside the seed's, the transport's share beside the encoding's."""

    comparison: Comparison
    note: str


def pairs(slower_faster: Sequence[tuple[str, str]], workloads: Sequence[str], form: Form = DIRECTION,
          statistic: str = "mean", where: Setting = LOOPBACK, clients: Sequence[int] = (1,),
          quick_clients: Sequence[int] | None = None) -> tuple[Comparison, ...]:
    """slower/faster for each pair, workload and level, in one setting; levels --quick leaves out (not in
    `quick_clients`) are marked `full_only`."""
    quick = set(clients if quick_clients is None else quick_clients)
    return tuple(Comparison(Measure(slow, w, n, where, statistic), Measure(fast, w, n, where, statistic), form,
                            full_only=n not in quick)
                 for slow, fast in slower_faster for w in workloads for n in clients)


def ordering(tiers: Sequence[Sequence[str]], workloads: Sequence[str], statistic: str = "mean",
             where: Setting = LOOPBACK, clients: int = 1) -> tuple[Comparison, ...]:
    """A < B < C: every system of a later tier against every system of the tier before, each a direction."""
    form = Ordering(tuple(tuple(tier) for tier in tiers))
    return pairs([(later, earlier) for a, b in zip(tiers, tiers[1:]) for earlier in a for later in b], workloads,
                 form, statistic, where, (clients,))


def need_text(need: float) -> str:
    """When a family holds: 'every cell shows it', 'at least 75% of the cells show it'."""
    return "every cell shows it" if need >= 1 else f"at least {need:.0%} of the cells show it"


def cells_text(n: int) -> str:
    return f"{n} cell{'s' if n != 1 else ''}"


@dataclass(frozen=True)
class Rule:
    """A claim's family (one Holm correction over every member), the share of it the claim needs, what is
    shown beside (not judged), whether the seed's own system stalled on Nagle (then such stalls do not
    invalidate a cell), and a note said with every verdict (what was left out, and why)."""

    family: tuple[Member, ...]
    need: float = 1.0
    beside: tuple[Beside, ...] = ()
    seed_had_nagle: bool = False
    note: str = ""

    def __call__(self, ev: Evidence) -> Judgement:
        members = [m for m in self.family if not (ev.quick and m.full_only)]
        ratios = {m.name: m.ratio(ev) for m in members}
        judged = [m for m in members if ratios[m.name] is not None]
        gone = _gone([pair for m in members if ratios[m.name] is None for pair in m.absent(ev)])
        shown = tuple(row for b in self.beside for row in _beside(ev, b))
        if not judged:
            left = [m.name for m in self.family if ev.quick and m.full_only]
            why = "; ".join(gone) or (f"not in --quick (a full run measures {', '.join(left)})" if left else
                                      "no cell of the claim was measured")
            return Judgement(shown, vocabulary.NOT_COMPARABLE, why, self.text())
        cells = [Cell(m.name, ratios[m.name], m.form, m.invalid(ev, self.seed_had_nagle)) for m in judged]
        decision = judge(cells, self.need)
        rows = tuple(row for m in judged for row in _rows(ev, m, ratios[m.name], decision))
        return Judgement(rows + shown, decision.verdict, self._why(decision, gone, ev), self.text(), decision.share)

    def _why(self, decision: Decision, gone: list[str], ev: Evidence) -> str:
        lines = [decision.why]
        lines += [f"left out of the family: {'; '.join(gone)}"] if gone else []
        left = [m.name for m in self.family if ev.quick and m.full_only]
        lines += [f"not in --quick: {', '.join(left)}"] if left else []
        aside = [b.comparison.name for b in self.beside if ev.quick and b.comparison.full_only]
        lines += [f"shown beside in a full run only: {', '.join(aside)}"] if aside else []
        lines += [self.note] if self.note else []
        return "\n".join(lines)

    def forms(self) -> list[Form]:
        return list(dict.fromkeys(m.form for m in self.family))

    def text(self) -> str:
        """The rule in one paragraph: how each ratio reads, each form's test, the family and its share."""
        readings = list(dict.fromkeys(m.reading() for m in self.family))
        tests = "; ".join(f.rule() for f in self.forms())
        settings = list(dict.fromkeys(m.where for m in self.family))
        return (f"{'; '.join(readings[:2])}{' ...' if len(readings) > 2 else ''}; {tests}; in "
                f"{' and '.join(settings)}; a family of {cells_text(len(self.family))}, one Holm correction over "
                f"them; holds when {need_text(self.need)}, in part when more than half do; "
                f"{stats.MIN_TRIALS} or more trials a side")

    def describe(self) -> list[str]:
        """What `suite --rules` prints for this rule: its form, operands, band or margin, setting and family."""
        lines = [f"form: {f.rule()}" for f in self.forms()]
        lines += [f"statistic: {reading}" for reading in dict.fromkeys(m.reading() for m in self.family)]
        lines.append(f"setting: {', '.join(dict.fromkeys(m.where for m in self.family))}")
        lines.append(f"family: {cells_text(len(self.family))}, Holm-corrected as one; holds when "
                     f"{need_text(self.need)}, in part when more than half do; nothing measured: not comparable")
        lines += [f"  {m.name}{' (a full run only: not in --quick)' if m.full_only else ''}" for m in self.family]
        lines += [f"beside, not judged: {b.comparison.name}{' (a full run only)' if b.comparison.full_only else ''}: "
                  f"{b.note}" for b in self.beside]
        lines += [f"note: {self.note}"] if self.note else []
        return lines

    def cells(self, quick: bool = False) -> list[NeededCell]:
        """Every measured cell the rule reads (its family's and what it shows beside), for a run cut to them."""
        members = [m for m in [*self.family, *(b.comparison for b in self.beside)] if not (quick and m.full_only)]
        return list(dict.fromkeys(cell for m in members for cell in m.cells()))


def _gone(pairs: list[tuple[str, str]], most: int = 4) -> list[str]:
    """Unmeasured cells by reason: 'not measured in this run loopback: grpc-py on usp.void x1, ... and 9 more'."""
    by: dict[str, list[str]] = {}
    for what, why in pairs:
        by.setdefault(why, [])
        if what not in by[why]:
            by[why].append(what)
    return [f"{why}: {', '.join(whats[:most])}{f' and {len(whats) - most} more' if len(whats) > most else ''}"
            for why, whats in by.items()]


def _rows(ev: Evidence, member: Member, ratio: stats.Ratio | None, decision: Decision) -> tuple[Measured, ...]:
    """The member's row (its ratio and where it stands after the family's correction), and the median's
    beside it when a mean carries a long tail."""
    said = decision.outcomes[member.name]
    if said in (OFF, UNSIZED):
        said = f"{said}: not {member.form.words}" if said == OFF else f"{said}: {member.form.words}"
    if member.name in decision.changed:
        said += f" (after Holm; alone: {decision.changed[member.name]})"
    row = Measured(member.name, MEASURES[member.statistic][0], ratio, said)
    return (row,) + _median_beside(ev, member)


def _median_beside(ev: Evidence, member: Member) -> tuple[Measured, ...]:
    """The median's ratio beside a mean's when a trial of either side has a CV above `stability.HIGH_CV`
    (a long tail the mean carries): shown, not judged."""
    if not isinstance(member, Comparison) or member.statistic not in ("mean", TRIMMED_MEAN):
        return ()
    sides = [ev.get(m.system, m.workload, m.clients, m.where) for m in (member.slower, member.faster)]
    if not any((c.latency.get("cv") or 0) > stability.HIGH_CV for g in sides if g for c in g.cells):
        return ()
    top, bottom = (ev.values(m.system, m.workload, m.clients, m.where, "median") for m in (member.slower,
                                                                                           member.faster))
    ratio = stats.trial_ratio(top, bottom) if top and bottom else None
    return (Measured(member.name, MEASURES["median"][0], ratio, f"{BESIDE}: CV above {stability.HIGH_CV:g}, the mean "
                     "carries a long tail (not judged)"),) if ratio else ()


BESIDE = "beside"


def standing(ratio: stats.Ratio) -> str:
    """Where a ratio shown beside stands on its own: above 1, below 1, not significant, or too few trials."""
    if not ratio.judged:
        return stats.CANNOT_TELL
    return "above 1" if ratio.above else "below 1" if ratio.below else "not significant"


def _beside(ev: Evidence, beside: Beside) -> tuple[Measured, ...]:
    c = beside.comparison
    ratio = c.ratio(ev)
    if ratio is None:
        return ()
    return (Measured(c.name, MEASURES[c.statistic][0], ratio, f"{BESIDE}: {beside.note} ({standing(ratio)}; "
                     "not judged)"),)


@dataclass(frozen=True)
class ShareRule:
    """'Only A answered under 30 ms': a share of calls under an absolute line. An absolute number from the
    seed's own network says nothing about another network's, so this is never judged here: the shares
    per trial are shown, and the verdict is not comparable, with `reason`."""

    systems: tuple[str, ...]
    workload: str
    where: Setting
    limit_ms: float
    reason: str

    def __call__(self, ev: Evidence) -> Judgement:
        rows = []
        for system in self.systems:
            g = ev.get(system, self.workload, 1, self.where)
            if g is not None:
                shares = [float(np.mean(t < self.limit_ms * 1e3)) for t in g.trials]
                rows.append(Measured(f"{system} {self.where.name}", f"calls under {self.limit_ms:g} ms per trial",
                                     value=", ".join(f"{v:.0%}" for v in shares), significance="shown, not judged"))
        return Judgement(tuple(rows), vocabulary.NOT_COMPARABLE, self.reason, self.text())

    def text(self) -> str:
        return (f"share below a line: each server's calls under {self.limit_ms:g} ms per trial, {self.where.name}; "
                "an absolute line is judged only on the seed's own network, so here: not comparable, shown")

    def describe(self) -> list[str]:
        return [f"form: {self.text()}",
                f"setting: {self.where.name}", f"shown: {', '.join(self.systems)} on {self.workload}",
                f"why not judged: {self.reason}"]

    def cells(self, quick: bool = False) -> list[NeededCell]:
        return [(s, self.workload, 1, self.where) for s in self.systems]


Judge = Rule | ShareRule
