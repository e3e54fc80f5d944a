"""Ways to judge a seed's claim from a run; each factory returns `judge(evidence) -> Judgement`.

A difference counts only when the 95% interval of its ratio over trials excludes 1
(`stats.trial_ratio`: one value per trial, a fresh server each, Welch's t on the
logarithms), and only with `stats.MIN_TRIALS` trials on each side; with fewer, the
verdict is "cannot tell". A magnitude ("about 10x", "9.3% better") counts when the
interval reaches the seed's excess over 1 within a factor of 2 (10x: 5.5x to 19x;
1.093x: 1.047x to 1.186x). A claim over several pairs or cells that holds for some
of them holds in part, and says for which.

Each judge returns one `Measured` row per pair or cell it looked at (the ratio, its
interval, where it stands), the verdict, why, and its rule: the statistic, the
direction of the ratio ('A/B = 1.82x means A takes 1.82 times as long') and the
threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rpcarena.analysis import stats
from rpcarena.suites.evidence import TRIMMED_MEAN, Evidence
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, PARTLY, UNDECIDED, Judgement, Measured

Judge = Callable[[Evidence], Judgement]
MAGNITUDE_TOLERANCE = 2.0
NOT_SIGNIFICANT = "not significant"
OPPOSITE = "the opposite"
SHOWN = "significant"
FEW_TRIALS = "too few trials"
OFF = "significant, but not about"  # a significant ratio outside the band about the seed's ('not about 10x')


def not_comparable(why: str, measured: Judge | None = None) -> Judge:
    """A claim this run cannot test (e.g. a network run); shows a local analogue when given one."""
    def judge(ev: Evidence) -> Judgement:
        shown = measured(ev) if measured else None
        return Judgement(shown.measured if shown else (), NOT_COMPARABLE, why,
                         f"local analogue: {shown.rule}" if shown and shown.rule else "")
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


def tally(outcomes: dict[str, str], unit: str, share: float = 1.0, shown_as: str = SHOWN,
          opposite_as: str = OPPOSITE) -> Judgement:
    """A verdict from one outcome per pair or cell: holds when at least `share` of them show it and
    none shows the opposite (or another size than the seed's) or lacks trials; in part when some show
    it; does not hold when none does and some show the opposite; cannot tell otherwise. `shown_as` and
    `opposite_as` name the two directions in `why` ('faster on a stream', 'slower').
    (`measured` and `rule` are left to the caller.)"""
    n, by = len(outcomes), _by_outcome(outcomes)
    shown, few = by.get(SHOWN, []), by.get(FEW_TRIALS, [])
    against = by.get(OPPOSITE, []) + [k for said, keys in by.items() if said.startswith(OFF) for k in keys]
    why = _why(by, n, unit, shown_as, opposite_as)
    if len(few) == n:
        return Judgement((), UNDECIDED, f"{stats.CANNOT_TELL} (every {unit[:-1]} has fewer than {stats.MIN_TRIALS} "
                                        "trials on a side)")
    if shown and not against and not few and len(shown) >= share * n:
        return Judgement((), HOLDS, why)
    if shown:
        return Judgement((), PARTLY, why, share=f"{len(shown)} of {n} {unit}")
    return Judgement((), FAILS if against else UNDECIDED, why)


def _by_outcome(outcomes: dict[str, str]) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    for name, said in outcomes.items():
        by.setdefault(said, []).append(name)
    return by


def _why(by: dict[str, list[str]], n: int, unit: str, shown_as: str, opposite_as: str) -> str:
    """'significant for 4 of 5 pairs (a, b, c, d); the opposite for none; not significant for e'."""
    shown = by.get(SHOWN, [])
    if n == 1:  # one pair or cell: what it showed, without counts
        said, (name,) = next(iter(by.items()))
        label = {SHOWN: shown_as, OPPOSITE: opposite_as, FEW_TRIALS: "too few trials"}.get(said, said)
        return f"{label} for {name}" + (f" ({stats.CANNOT_TELL})" if said == FEW_TRIALS else "")
    parts = [f"{shown_as} for {len(shown)} of {n} {unit}" + (f" ({', '.join(shown)})" if 0 < len(shown) < n else ""),
             f"{opposite_as} for {', '.join(by.get(OPPOSITE, [])) or 'none'}"]
    parts += [f"{said} for {', '.join(keys)}" for said, keys in by.items() if said.startswith(OFF)]
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


def _faster_rule(slow: str, fast: str, statistic: str, share: float, seed_ratio: float | None) -> str:
    need = "in every cell" if share >= 1 else f"in at least {share:.0%} of the cells"
    text = f"{ratio_rule(slow, fast, statistic)}; holds when its 95% interval over trials is above 1 {need}"
    if seed_ratio:
        low, high = band(seed_ratio)
        text += f", reaching {low:.3g}x to {high:.3g}x ('about {seed_ratio:g}x')"
    return text + f"; {stats.MIN_TRIALS} or more trials on each side"


def faster(fast: str, slow: str, workloads: Sequence[str], statistic: str = "median",
           clients: Sequence[int] | None = None, share: float = 1.0, seed_ratio: float | None = None) -> Judge:
    """`fast` is significantly faster than `slow` on at least `share` of the cells and slower on none;
    with `seed_ratio`, also by about that factor (slow/fast)."""
    def judge(ev: Evidence) -> Judgement:
        rule = _faster_rule(slow, fast, statistic, share, seed_ratio)
        gone = ev.absent([fast, slow], list(workloads))
        ratios = _ratios(ev, slow, fast, workloads, statistic, clients)
        if gone or not ratios:
            at = f" with {' or '.join(map(str, clients))} clients" if clients else ""
            return Judgement((), NOT_COMPARABLE, gone or f"no cell measured both{at}", rule)
        said = {cell: about(r, seed_ratio) for cell, r in ratios.items()}
        measured = tuple(measure(f"{slow}/{fast} {cell}", MEASURES[statistic][0], r, said[cell])
                         for cell, r in ratios.items())
        found = tally(said, "cells", share)
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


def about(ratio: stats.Ratio, seed_ratio: float | None) -> str:
    """`outcome`, and with the seed's ratio, a significant ratio whose interval misses the band about it
    is 'significant, but not about 10x' (it counts against the claim, as the opposite does)."""
    said = outcome(ratio)
    if said != SHOWN or not seed_ratio or ratio.interval is None:
        return said
    low, high = band(seed_ratio)
    return said if ratio.interval.high >= low and ratio.interval.low <= high else f"{OFF} {seed_ratio:g}x"


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
        measured = order + tuple(measure(k, MEASURES[statistic][0], r) for k, r in ratios.items())
        found = tally({k: outcome(r) for k, r in ratios.items()}, "pairs")
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


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
    for every pair it can be judged on, in part when for some ("holds for 3 of 4 pairs"), and says which
    (the first pair is judged, and says what is missing, when none was measured)."""
    def judge(ev: Evidence) -> Judgement:
        found = {f"{slow}/{fast}": make(fast, slow)(ev) for fast, slow in pairs
                 if ev.measured(fast) and ev.measured(slow)}
        return combined(found, "pairs") if found else make(*pairs[0])(ev)
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
    """All parts hold: holds; some hold (wholly or in part): in part; none, some fail: does not hold."""
    verdicts = [j.verdict for j in found.values()]
    held, partly = verdicts.count(HOLDS), verdicts.count(PARTLY)
    if held == len(verdicts):
        return HOLDS, ""
    if held:
        return PARTLY, f"{held} of {len(verdicts)} {unit}"
    if partly:
        return PARTLY, f"some cells of {partly} of {len(verdicts)} {unit}"
    return (FAILS if FAILS in verdicts else UNDECIDED), ""
