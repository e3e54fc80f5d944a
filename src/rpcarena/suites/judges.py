"""Ways to judge a seed's claim from a run; each factory returns `judge(evidence) -> Judgement`.

A difference counts only when the 95% interval of its ratio over trials excludes 1
(`stats.trial_ratio`: one value per trial, a fresh server each, Welch's t on the
logarithms), and only with `stats.MIN_TRIALS` trials on each side. Where the seed gave a
size, its words decide the rule (`Magnitude`): "about 10x" holds when the interval lies
inside the band about it (the excess over 1 within a factor of 2: 5.5x to 19x), "up to
10x" when it lies at or below 10x, "at least 2x" when at or above 2x; an interval wholly
outside is "holds in direction, magnitude differs", one straddling an edge "cannot tell".

A claim over several cells holds when every cell shows it (each at 5%: all must, so no
correction is due); otherwise the cells are counted after a Holm correction over all those
judged: "holds in part" needs a majority in the seed's direction and the opposite only in
the minority, "mixed" is significant both ways without such a majority, "does not hold" is
the opposite with nothing in the seed's direction. A cell a diagnosis invalidates
(`Evidence.invalid`: client-bound, Nagle's stalls where the seed had none, two modes under
a median) cannot tell. Pairs a claim names but the run did not measure are named.

Each judge returns one `Measured` row per pair or cell it looked at (the ratio, its
interval, where it stands), the verdict, why, and its rule: the statistic, the
direction of the ratio ('A/B = 1.82x means A takes 1.82 times as long') and the
threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rpcarena.analysis import stability, stats
from rpcarena.suites.evidence import TRIMMED_MEAN, Evidence
from rpcarena.suites.model import (
    FAILS,
    HOLDS,
    MAGNITUDE,
    MIXED,
    NOT_COMPARABLE,
    PARTLY,
    UNDECIDED,
    Judgement,
    Measured,
)

Judge = Callable[[Evidence], Judgement]
MAGNITUDE_TOLERANCE = 2.0
NOT_SIGNIFICANT = "not significant"
OPPOSITE = "the opposite"
SHOWN = "significant"
FEW_TRIALS = "too few trials"
OFF = "significant, but not"  # in the seed's direction, wholly outside its size ('..., but not about 10x')
STRADDLES = "significant; size cannot tell:"  # in the seed's direction, its interval across an edge of the size
INVALID = "cannot tell:"  # a diagnosis invalidates the cell ('cannot tell: client-bound in trial 2 of rpyc')
ABOUT, UP_TO, AT_LEAST = "about", "up to", "at least"


def not_comparable(why: str, measured: Judge | None = None) -> Judge:
    """A claim this run cannot test (e.g. the seed measured another system); shows what was measured
    instead when given a judge for it, with that judge's verdict in words."""
    def judge(ev: Evidence) -> Judgement:
        shown = measured(ev) if measured else None
        if shown is None:
            return Judgement((), NOT_COMPARABLE, why)
        return Judgement(shown.measured, NOT_COMPARABLE, f"{why}\nmeasured instead: {shown.says()}: {shown.why}",
                         f"measured instead: {shown.rule}" if shown.rule else "")
    return judge


def on_network(judge: Judge) -> Judge:
    """Judge from the cells measured over an emulated link (a part with `link`), not loopback."""
    return lambda ev: judge(ev.on_link())


def outcome(ratio: stats.Ratio) -> str:
    """Where a ratio stands against a claim that it is above 1."""
    if not ratio.judged:
        return FEW_TRIALS
    return SHOWN if ratio.above else OPPOSITE if ratio.below else NOT_SIGNIFICANT


def smaller(before: stats.Ratio, after: stats.Ratio) -> str:
    """Where `after` stands against a claim that it is smaller than `before`: shown when its interval
    lies wholly below `before`'s, the opposite when wholly above, not significant when they overlap."""
    if before.interval is None or after.interval is None:
        return FEW_TRIALS
    if after.interval.high < before.interval.low:
        return SHOWN
    return OPPOSITE if after.interval.low > before.interval.high else NOT_SIGNIFICANT


def significance(said: str) -> str:
    """An outcome as the measured column shows it: too few trials says what to do."""
    return stats.CANNOT_TELL if said == FEW_TRIALS else said


def measure(what: str, statistic: str, ratio: stats.Ratio, said: str | None = None) -> Measured:
    """One ratio as a measured row; `said` defaults to its outcome against 'above 1'."""
    return Measured(what, statistic, ratio, significance(outcome(ratio) if said is None else said))


def along(said: str) -> bool:
    """Whether a cell's outcome is significant in the seed's direction (of its size or not)."""
    return said == SHOWN or said.startswith(OFF) or said.startswith(STRADDLES)


def tally(outcomes: dict[str, str], unit: str, share: float = 1.0, shown_as: str = SHOWN,
          opposite_as: str = OPPOSITE, p_values: dict[str, float] | None = None, parts: bool = False) -> Judgement:
    """A verdict from one outcome per pair or cell (the module's rules): holds when all show it (or,
    with `share` below 1, that share after Holm and none the opposite), of the seed's size
    (`sized`); in part for a majority after Holm with the opposite in the minority; mixed both
    ways otherwise; does not hold for the opposite alone; cannot tell for the rest. With `parts` (the
    outcomes are the separate statements of one claim, not cells of one), half is enough. `p_values`
    (per cell) drive the Holm correction; without them each cell counts as it stands. `shown_as`
    and `opposite_as` name the two directions in `why`. (`measured` and `rule` are left to the
    caller.)"""
    n, by = len(outcomes), _by_outcome(outcomes)
    few = by.get(FEW_TRIALS, [])
    held, against = _after_holm(outcomes, p_values)
    why = _why(by, n, unit, shown_as, opposite_as) + _holm_note(outcomes, held, against, p_values)
    if len(few) == n:
        return Judgement((), UNDECIDED, f"{stats.CANNOT_TELL} (every {unit[:-1]} has fewer than {stats.MIN_TRIALS} "
                                        "trials on a side)")
    if all(along(said) for said in outcomes.values()):
        return Judgement((), sized(list(outcomes.values())), why)
    if share < 1 and len(held) >= share * n and not against:
        return Judgement((), sized([outcomes[k] for k in held]), why)
    part, most = f"{len(held)} of {n} {unit}", 2 * len(held) > n or (parts and 2 * len(held) >= n)
    if held and against:  # in part only with the opposite in the minority, parts or cells alike
        return Judgement((), PARTLY if most and len(against) < len(held) else MIXED, why, share=part)
    if most:
        return Judgement((), PARTLY, why, share=part)
    return Judgement((), FAILS if against else UNDECIDED, why)


def sized(outcomes: Sequence[str]) -> str:
    """The verdict of cells all in the seed's direction: cannot tell when an interval straddles an
    edge of the seed's size, magnitude differs when one lies wholly outside it, holds otherwise."""
    if any(said.startswith(STRADDLES) for said in outcomes):
        return UNDECIDED
    return MAGNITUDE if any(said.startswith(OFF) for said in outcomes) else HOLDS


def _after_holm(outcomes: dict[str, str], p_values: dict[str, float] | None) -> tuple[list[str], list[str]]:
    """The cells in the seed's direction and the opposite that stay significant after Holm's
    correction over every cell with a p-value (all of them as they stand without p-values)."""
    kept = set(outcomes) if p_values is None else stats.holm(p_values)
    return ([k for k, said in outcomes.items() if along(said) and k in kept],
            [k for k, said in outcomes.items() if said == OPPOSITE and k in kept])


def _holm_note(outcomes: dict[str, str], held: list[str], against: list[str],
               p_values: dict[str, float] | None) -> str:
    """What the Holm correction changed, when it changed anything."""
    raw = [k for k, said in outcomes.items() if along(said) or said == OPPOSITE]
    dropped = [k for k in raw if k not in held and k not in against]
    if not p_values or not dropped:
        return ""
    return (f"; after a Holm correction over the {len(p_values)} cells judged, not significant for "
            f"{', '.join(dropped)}")


def _by_outcome(outcomes: dict[str, str]) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for name, said in outcomes.items():
        by.setdefault(said, []).append(name)
    return by


def _why(by: dict[str, list[str]], n: int, unit: str, shown_as: str, opposite_as: str) -> str:
    """'significant for 4 of 5 pairs (a, b, c, d); the opposite for none; not significant for e'."""
    shown = [key for said, keys in by.items() if along(said) for key in keys]  # of the seed's size or not
    if n == 1:  # one pair or cell: what it showed, without counts
        said, (name,) = next(iter(by.items()))
        label = {SHOWN: shown_as, OPPOSITE: opposite_as, FEW_TRIALS: "too few trials"}.get(said, said)
        return f"{label} for {name}" + (f" ({stats.CANNOT_TELL})" if said == FEW_TRIALS else "")
    parts = [f"{shown_as} for {len(shown)} of {n} {unit}" + (f" ({', '.join(shown)})" if 0 < len(shown) < n else ""),
             f"{opposite_as} for {', '.join(by.get(OPPOSITE, [])) or 'none'}"]
    parts += [f"{said} for {', '.join(keys)}" for said, keys in by.items()
              if said.startswith((OFF, STRADDLES, INVALID)) and not said == stats.CANNOT_TELL]
    if by.get(NOT_SIGNIFICANT):
        parts.append(f"{NOT_SIGNIFICANT} for {', '.join(by[NOT_SIGNIFICANT])}")
    if by.get(FEW_TRIALS):
        parts.append(f"too few trials for {', '.join(by[FEW_TRIALS])} ({stats.CANNOT_TELL})")
    return "; ".join(parts)


def _ratios(ev: Evidence, slow: str, fast: str, workloads: Sequence[str], statistic: str,
            clients: Sequence[int] | None) -> dict[str, stats.Ratio]:
    """slow/fast per measured workload and concurrency (all measured levels unless given)."""
    found = {}
    for w in ev.resolve(workloads):
        for n in clients or ev.levels(slow, w):
            ratio = ev.ratio(slow, fast, w, statistic, n)
            if ratio is not None:
                found[f"{w} x{n}"] = ratio
    return found


def band(seed_ratio: float) -> tuple[float, float]:
    """The ratios that are 'about' the seed's: its excess over 1 within a factor MAGNITUDE_TOLERANCE."""
    excess = seed_ratio - 1
    return 1 + excess / MAGNITUDE_TOLERANCE, 1 + excess * MAGNITUDE_TOLERANCE


# What each statistic a judge compares is called, and how its ratio reads.
MEASURES = {"median": ("median latency", "takes 1.82 times as long as"),
            "p99": ("p99 latency", "takes 1.82 times as long as"),
            "mean": ("mean latency", "takes 1.82 times as long as"),
            TRIMMED_MEAN: ("mean latency of the calls from p2 to p98", "takes 1.82 times as long as"),
            "cpu_us_per_call": ("CPU per call (client + server)", "uses 1.82 times as much CPU per call as")}


def ratio_rule(slow: str, fast: str, statistic: str) -> str:
    """How to read slow/fast: 'mean latency rest-go/grpc-go (1.82x means rest-go takes 1.82 times as long
    as grpc-go)'."""
    name, reading = MEASURES[statistic]
    return f"{name} {slow}/{fast} (1.82x means {slow} {reading} {fast})"


@dataclass(frozen=True)
class Magnitude:
    """The size the seed gave, in its words: 'about' 10x (inside the band about it), 'up to' 10x (at or
    below it), 'at least' 2x (at or above it)."""

    seed_ratio: float
    bound: str = ABOUT

    def __post_init__(self) -> None:
        if self.bound not in (ABOUT, UP_TO, AT_LEAST):
            raise ValueError(f"a magnitude is {ABOUT!r}, {UP_TO!r} or {AT_LEAST!r}, not {self.bound!r}")

    @property
    def words(self) -> str:
        return f"{self.bound} {self.seed_ratio:g}x"

    @property
    def range(self) -> tuple[float, float]:
        if self.bound == ABOUT:
            return band(self.seed_ratio)
        return (1.0, self.seed_ratio) if self.bound == UP_TO else (self.seed_ratio, math.inf)

    def rule(self) -> str:
        low, high = self.range
        inside = {ABOUT: f"inside {low:.3g}x to {high:.3g}x", UP_TO: f"at or below {high:.3g}x",
                  AT_LEAST: f"at or above {low:.3g}x"}[self.bound]
        return (f", lying {inside} ('{self.words}'; wholly outside: magnitude differs; across the edge: "
                "cannot tell)")

    def where(self, interval: stats.Interval) -> str:
        """SHOWN inside the range, OFF wholly outside it, STRADDLES across an edge."""
        low, high = self.range
        if interval.low >= low and interval.high <= high:
            return SHOWN
        if interval.high < low or interval.low > high:
            return f"{OFF} {self.words}"
        return f"{STRADDLES} {self.words}"


def _faster_rule(slow: str, fast: str, statistic: str, share: float, size: Magnitude | None) -> str:
    need = "in every cell" if share >= 1 else f"in at least {share:.0%} of the cells after Holm"
    text = f"{ratio_rule(slow, fast, statistic)}; holds when its 95% interval over trials is above 1 {need}"
    if size:
        text += size.rule()
    return text + f"; {stats.MIN_TRIALS} or more trials on each side"


def faster(fast: str, slow: str, workloads: Sequence[str], statistic: str = "median",
           clients: Sequence[int] | None = None, share: float = 1.0, seed_ratio: float | None = None,
           bound: str = ABOUT, seed_had_nagle: bool = False) -> Judge:
    """`fast` is significantly faster than `slow` (the module's rules: every cell, or `share` of them
    after Holm); with `seed_ratio`, also by that factor (slow/fast) as `bound` reads it. A cell a
    diagnosis invalidates cannot tell (`Evidence.invalid`; Nagle's stalls count unless the seed's
    own system had them, `seed_had_nagle`)."""
    size = Magnitude(seed_ratio, bound) if seed_ratio else None

    def judge(ev: Evidence) -> Judgement:
        rule = _faster_rule(slow, fast, statistic, share, size)
        gone = ev.absent([fast, slow], list(workloads))
        ratios = _ratios(ev, slow, fast, workloads, statistic, clients)
        if gone or not ratios:
            at = f" with {' or '.join(map(str, clients))} clients" if clients else ""
            return Judgement((), NOT_COMPARABLE, gone or f"no cell measured both{at}", rule)
        said = {}
        for cell, r in ratios.items():
            workload, n = cell.rsplit(" x", 1)
            spoilt = [ev.invalid(c, workload, int(n), statistic, seed_had_nagle) for c in (slow, fast)]
            said[cell] = next((f"{INVALID} {why}" for why in spoilt if why), about(r, size))
        measured = tuple(row for cell, r in ratios.items()
                         for row in (measure(f"{slow}/{fast} {cell}", MEASURES[statistic][0], r, said[cell]),
                                     *_median_beside(ev, slow, fast, cell, statistic)))
        found = tally(said, "cells", share, p_values=p_values(ratios))
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


def _median_beside(ev: Evidence, slow: str, fast: str, cell: str, statistic: str) -> tuple[Measured, ...]:
    """The median's ratio beside a mean's when a trial of either side has a CV above `stability.HIGH_CV`
    (a long tail the mean carries): shown, not judged."""
    workload, n = cell.rsplit(" x", 1)
    sides = [ev.get(s, workload, int(n)) for s in (slow, fast)]
    high = statistic in ("mean", TRIMMED_MEAN) and any(
        (c.latency.get("cv") or 0) > stability.HIGH_CV for g in sides if g for c in g.cells)
    ratio = ev.ratio(slow, fast, workload, "median", int(n)) if high else None
    return (Measured(f"{slow}/{fast} {cell}", MEASURES["median"][0], ratio, "beside: CV above "
                     f"{stability.HIGH_CV:g}, the mean carries a long tail (not judged)"),) if ratio else ()


def p_values(ratios: dict[str, stats.Ratio]) -> dict[str, float]:
    """The p-value of each ratio that has an interval, for the Holm correction over them."""
    return {k: p for k, r in ratios.items() if (p := stats.p_value(r)) is not None}


def about(ratio: stats.Ratio, size: Magnitude | float | None) -> str:
    """`outcome`, and with the seed's size, where a significant ratio's interval stands against it
    (`Magnitude.where`; a bare number reads 'about')."""
    said = outcome(ratio)
    if said != SHOWN or not size or ratio.interval is None:
        return said
    return (size if isinstance(size, Magnitude) else Magnitude(size)).where(ratio.interval)


def ranking(tiers: Sequence[Sequence[str]], patterns: Sequence[str], clients: int | None = None,
            statistic: str = "mean") -> Judge:
    """Every system of a tier significantly faster than every system of the next tier, at `clients`
    (default: the highest concurrency measured)."""
    def judge(ev: Evidence) -> Judgement:
        systems = [s for tier in tiers for s in tier]
        workloads = ev.resolve(patterns)
        n = clients or max((n for s in systems for w in workloads for n in ev.levels(s, w)), default=1)
        rule = (f"{MEASURES[statistic][0]} later/earlier tier at {n} clients (2x means the later takes twice as "
                "long); "
                f"holds when every such interval over trials is above 1; {stats.MIN_TRIALS} or more trials each")
        order = _order(ev, systems, workloads, n, statistic)
        gone = ev.absent(systems, list(patterns))
        ratios = {f"{b}/{a} on {w}": r for earlier, later in zip(tiers, tiers[1:]) for a in earlier for b in later
                  for w in workloads if (r := ev.ratio(b, a, w, statistic, n)) is not None}
        if gone or not ratios:
            return Judgement(order, NOT_COMPARABLE, gone or "no pair of tiers measured", rule)
        said = {k: _valid(ev, k, n, statistic) or outcome(r) for k, r in ratios.items()}
        measured = order + tuple(measure(k, MEASURES[statistic][0], r, said[k]) for k, r in ratios.items())
        found = tally(said, "pairs", p_values=p_values(ratios))
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


def _valid(ev: Evidence, pair: str, clients: int, statistic: str) -> str | None:
    """INVALID with why when a diagnosis spoils either side of 'b/a on workload', else None."""
    systems, workload = pair.split(" on ", 1)
    spoilt = (ev.invalid(s, workload, clients, statistic) for s in systems.split("/"))
    return next((f"{INVALID} {why}" for why in spoilt if why), None)


def _order(ev: Evidence, systems: Sequence[str], workloads: Sequence[str], clients: int,
           statistic: str) -> tuple[Measured, ...]:
    rows = []
    for w in workloads:
        found = [(v, s) for s in systems if (g := ev.get(s, w, clients)) and (v := g.across_trials(statistic))]
        if found:
            rows.append(Measured(f"{w} x{clients}", f"{MEASURES[statistic][0]} order",
                                 value=" < ".join(f"{s} {v:,.0f} µs" for v, s in sorted(found))))
    return tuple(rows)


def bytes_growth(more: str, less: str, smallest: str, largest: str, why_more: str) -> Judge:
    """Bytes per call of `more` grow faster from the smallest to the largest workload than `less`'s."""
    rule = (f"TCP payload bytes per call both ways (kernel counters), growth from {smallest} to {largest}; "
            f"holds when {more}'s growth exceeds {less}'s")

    def judge(ev: Evidence) -> Judgement:
        growth = {s: _growth(ev, s, smallest, largest) for s in (more, less)}
        measured = tuple(Measured(s, BYTES, value=g) for s, g in growth.items() if isinstance(g, str))
        gone = ev.absent([more, less], [smallest, largest])
        if gone or not all(isinstance(g, tuple) for g in growth.values()):
            return Judgement(measured, NOT_COMPARABLE, gone or "bytes on the wire not measured here", rule)
        (a, text_a), (b, text_b) = growth[more], growth[less]
        verdict = HOLDS if a > b else FAILS
        return Judgement((Measured(more, BYTES, value=text_a), Measured(less, BYTES, value=text_b)), verdict,
                         f"{more} grows by {a:,.0f} B/call against {b:,.0f} ({why_more})", rule)
    return judge


BYTES = "payload bytes per call"


def _growth(ev: Evidence, system: str, smallest: str, largest: str) -> tuple[float, str] | str | None:
    small, large = ev.get(system, smallest), ev.get(system, largest)
    if small is None or large is None:
        return None
    a, b = small.payload_bytes_per_call, large.payload_bytes_per_call
    if a is None or b is None:
        return "bytes not measured"
    return b - a, f"{a:,.0f} -> {b:,.0f} B/call"


def every_pair(pairs: Sequence[tuple[str, str]], make: Callable[[str, str], Judge]) -> Judge:
    """A claim judged on each (fast, slow) pair measured, e.g. one pair per language: holds when it holds
    for every pair it can be judged on, in part when for some ("holds for 3 of 4 pairs"), and says which;
    the pairs not measured are named (the first pair is judged, and says what is missing, when none
    was measured)."""
    def judge(ev: Evidence) -> Judgement:
        found = {f"{slow}/{fast}": make(fast, slow)(ev) for fast, slow in pairs
                 if ev.measured(fast) and ev.measured(slow)}
        if not found:
            return make(*pairs[0])(ev)
        judged = combined(found, "pairs")
        unmeasured = [f"{slow}/{fast}" for fast, slow in pairs if f"{slow}/{fast}" not in found]
        return replace(judged, why=judged.why + (f"\nnot measured here: {', '.join(unmeasured)}" if unmeasured else ""))
    return judge


def everywhere(judge: Judge) -> Judge:
    """A claim the seed made for every setting: judged on loopback and over the emulated link, holding
    when it holds in both, in part when in one ('holds for 1 of 2 settings')."""
    def both(ev: Evidence) -> Judgement:
        found = {"loopback": judge(ev), "over the link": judge(ev.on_link())}
        return combined(found, "settings", label=True)
    return both


def combined(found: dict[str, Judgement], unit: str, label: bool = False) -> Judgement:
    """Judgements of one claim on several pairs or settings as one: every measured row (named by its
    pair or setting when `label`), a verdict over those that could be judged (`_parts_verdict`), and
    one line of why per part."""
    measured = tuple(replace(m, what=f"{name}: {m.what}") if label else m
                     for name, j in found.items() for m in j.measured)
    first = next(iter(found.values()))
    rule = f"{first.rule} (each of the {unit} alike)" if first.rule else ""
    comparable = {name: j for name, j in found.items() if j.verdict != NOT_COMPARABLE}
    verdict, share = _parts_verdict(comparable, unit) if comparable else (NOT_COMPARABLE, "")
    why = "\n".join(f"{name}: {j.says()}: {j.why}" for name, j in found.items())
    return Judgement(measured, verdict, why, rule, share)


def _parts_verdict(found: dict[str, Judgement], unit: str) -> tuple[str, str]:
    """All parts hold: holds (magnitude differs when some hold only in direction); at least half hold
    (wholly, in direction or in part) and fewer fail: in part; some hold and as many or more fail, or
    a part is mixed: mixed; none holds and some fail: does not hold; cannot tell otherwise."""
    verdicts = [j.verdict for j in found.values()]
    n, held = len(verdicts), sum(v in (HOLDS, MAGNITUDE) for v in verdicts)
    partly, failed = verdicts.count(PARTLY), verdicts.count(FAILS)
    if held == n:
        return (HOLDS if verdicts.count(HOLDS) == n else MAGNITUDE), ""
    if held and 2 * held >= n and failed < held:  # "in direction" when none of them is of the seed's size
        return PARTLY, f"{held} of {n} {unit}" + ("" if HOLDS in verdicts else ", in direction (magnitude differs)")
    if partly and 2 * (held + partly) >= n and failed < held + partly:
        return PARTLY, f"some cells of {partly} of {n} {unit}"
    if (held or partly) and failed or MIXED in verdicts:
        return MIXED, ""
    return (FAILS if failed else UNDECIDED), ""
