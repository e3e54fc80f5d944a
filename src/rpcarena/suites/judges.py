"""Ways to judge a seed's claim from a run; each factory returns `judge(evidence) -> Judgement`.

A difference counts only when its 95% bootstrap interval excludes "no difference";
a magnitude ("about 10x") counts when the interval reaches within a factor of 2 of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rpcarena.analysis import stats
from rpcarena.suites.evidence import Evidence, ratio_text
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Judgement

Judge = Callable[[Evidence], Judgement]
MAGNITUDE_TOLERANCE = 2.0


def not_comparable(why: str, measured: Judge | None = None) -> Judge:
    """A claim this run cannot test (e.g. a network run); shows a local analogue when given one."""
    def judge(ev: Evidence) -> Judgement:
        shown = measured(ev).measured if measured else "-"
        return Judgement(shown, NOT_COMPARABLE, why)
    return judge


def on_network(judge: Judge) -> Judge:
    """Judge from the cells measured over an emulated link (a part with `link`), not loopback."""
    return lambda ev: judge(ev.on_link())


def _ratios(ev: Evidence, slow: str, fast: str, workloads: Sequence[str], statistic: str,
            clients: Sequence[int] | None) -> dict[str, stats.Interval]:
    """slow/fast per measured workload and concurrency (all measured levels unless given)."""
    found = {}
    for w in ev.resolve(workloads):
        for n in clients or ev.levels(slow, w):
            ci = ev.ratio(slow, fast, w, statistic, n)
            if ci is not None:
                found[f"{w} x{n}"] = ci
    return found


def _describe(ratios: dict[str, stats.Interval], slow: str, fast: str, statistic: str) -> str:
    head = f"{slow}/{fast} {statistic}: "
    if len(ratios) <= 4:
        return head + "; ".join(f"{k} {ratio_text(ci)}" for k, ci in ratios.items())
    geo = math.exp(sum(math.log(ci.estimate) for ci in ratios.values()) / len(ratios))
    lo, hi = min(ratios.items(), key=lambda kv: kv[1].estimate), max(ratios.items(), key=lambda kv: kv[1].estimate)
    return (head + f"geometric mean {geo:.2f}x over {len(ratios)} cells, from {lo[0]} {ratio_text(lo[1])} "
            f"to {hi[0]} {ratio_text(hi[1])}")


def _magnitude(ratios: dict[str, stats.Interval], seed_ratio: float) -> list[str]:
    """The cells whose interval stays more than a factor of 2 away from the seed's ratio."""
    low, high = seed_ratio / MAGNITUDE_TOLERANCE, seed_ratio * MAGNITUDE_TOLERANCE
    return [k for k, ci in ratios.items() if ci.high < low or ci.low > high]


def faster(fast: str, slow: str, workloads: Sequence[str], statistic: str = "median",
           clients: Sequence[int] | None = None, share: float = 1.0, seed_ratio: float | None = None) -> Judge:
    """`fast` is significantly faster than `slow` on at least `share` of the cells and slower on none;
    with `seed_ratio`, also by about that factor (slow/fast)."""
    def judge(ev: Evidence) -> Judgement:
        gone = ev.absent([fast, slow], list(workloads))
        ratios = _ratios(ev, slow, fast, workloads, statistic, clients)
        if gone or not ratios:
            return Judgement("-", NOT_COMPARABLE, gone or "no cell measured both")
        wins = sum(ci.low > 1 for ci in ratios.values())
        losses = [k for k, ci in ratios.items() if ci.high < 1]
        measured = _describe(ratios, slow, fast, statistic)
        counts = f"{fast} significantly faster in {wins} of {len(ratios)}, slower in {len(losses)}"
        if losses or wins < share * len(ratios):
            return Judgement(measured, FAILS, counts + (f" ({', '.join(losses[:3])})" if losses else ""))
        off = _magnitude(ratios, seed_ratio) if seed_ratio else []
        if off:
            return Judgement(measured, FAILS, f"{counts}, but not about {seed_ratio:g}x in {', '.join(off[:3])} "
                                              f"(more than a factor {MAGNITUDE_TOLERANCE:g} away)")
        return Judgement(measured, HOLDS, counts + (f", about {seed_ratio:g}x" if seed_ratio else ""))
    return judge


def ranking(tiers: Sequence[Sequence[str]], patterns: Sequence[str], clients: int | None = None,
            statistic: str = "mean") -> Judge:
    """Every system of a tier significantly faster than every system of the next tier, at `clients`
    (default: the highest concurrency measured)."""
    def judge(ev: Evidence) -> Judgement:
        systems = [s for tier in tiers for s in tier]
        workloads = ev.resolve(patterns)
        levels = [n for s in systems for w in workloads for n in ev.levels(s, w)]
        n = clients or max(levels, default=1)
        gone = ev.absent(systems, list(patterns))
        if gone:
            return Judgement(_order(ev, systems, workloads, n, statistic), NOT_COMPARABLE, gone)
        broken = [f"{a} vs {b} on {w}: {ratio_text(ci)}" for earlier, later in zip(tiers, tiers[1:])
                  for a in earlier for b in later for w in workloads
                  if (ci := ev.ratio(b, a, w, statistic, n)) is not None and not ci.low > 1]
        measured = _order(ev, systems, workloads, n, statistic)
        if broken:
            return Judgement(measured, FAILS, "order not significant or reversed: " + "; ".join(broken[:3]))
        return Judgement(measured, HOLDS, f"each tier significantly faster ({statistic} latency) than the next")
    return judge


def _order(ev: Evidence, systems: Sequence[str], workloads: Sequence[str], clients: int, statistic: str) -> str:
    parts = []
    for w in workloads:
        found = [(g.bootstrap().estimates[statistic], s) for s in systems if (g := ev.get(s, w, clients))]
        if found:
            order = " < ".join(f"{s} {v:,.0f} µs" for v, s in sorted(found))
            parts.append(f"{w} x{clients} {statistic}: {order}")
    return "; ".join(parts) or "-"


def bytes_growth(more: str, less: str, smallest: str, largest: str, why_more: str) -> Judge:
    """Bytes per call of `more` grow faster from the smallest to the largest workload than `less`'s."""
    def judge(ev: Evidence) -> Judgement:
        growth = {s: _growth(ev, s, smallest, largest) for s in (more, less)}
        measured = "; ".join(f"{s}: {g}" for s, g in growth.items() if isinstance(g, str))
        gone = ev.absent([more, less], [smallest, largest])
        if gone or not all(isinstance(g, tuple) for g in growth.values()):
            return Judgement(measured or "-", NOT_COMPARABLE, gone or "bytes on the wire not measured here")
        (a, text_a), (b, text_b) = growth[more], growth[less]
        measured = f"{more}: {text_a}; {less}: {text_b}"
        verdict = HOLDS if a > b else FAILS
        return Judgement(measured, verdict, f"{more} grows by {a:,.0f} B/call against {b:,.0f} ({why_more})")
    return judge


def _growth(ev: Evidence, system: str, smallest: str, largest: str) -> tuple[float, str] | str | None:
    small, large = ev.get(system, smallest), ev.get(system, largest)
    if small is None or large is None:
        return None
    a, b = small.payload_bytes_per_call, large.payload_bytes_per_call
    if a is None or b is None:
        return "bytes not measured"
    return b - a, f"{a:,.0f} -> {b:,.0f} B/call"


def every_pair(pairs: Sequence[tuple[str, str]], make: Callable[[str, str], Judge]) -> Judge:
    """A claim judged on each (fast, slow) pair measured, e.g. one pair per language; it holds
    when it holds for every one (the first pair is judged, and says what is missing, if none was)."""
    def judge(ev: Evidence) -> Judgement:
        found = [(f, make(f, s)(ev)) for f, s in pairs if ev.measured(f) and ev.measured(s)]
        if not found:
            return make(*pairs[0])(ev)
        measured = " | ".join(j.measured for _, j in found)
        why = " | ".join(f"{f}: {j.why}" for f, j in found)
        verdicts = {j.verdict for _, j in found}
        verdict = HOLDS if verdicts == {HOLDS} else (NOT_COMPARABLE if verdicts == {NOT_COMPARABLE} else FAILS)
        return Judgement(measured, verdict, why)
    return judge
