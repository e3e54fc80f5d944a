"""infobip2016: HTTP/JSON vs HTTP/Java serialization vs MML typed JSON, Java services (seed 004, Spanish).

Throughput of a closed loop is clients / mean latency, so "faster" is judged on the mean latency at
each concurrency level (1, 32, 64, 128 in the seed); where a cell's CV is high the median's ratio
is shown beside it. The MML stand-in is `typed-json-java`: the wire of the Python `typed-json`
in Java, with a Java client, as its HTTP rivals are, so MML-vs-HTTP claims compare protocols in
one language with one kind of driver (the Python stand-in mixed language and driver in).

The seed's two settings are two parts: loopback, and a network where the HTTP traffic goes
through HAProxy and MML connects directly. The network here is an emulated 100 Mbit/s LAN
(`rpcarena.network.link`: 0.3 ms round trips through the delay line).
"""

from __future__ import annotations

from dataclasses import replace

from rpcarena.analysis import stats
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import (
    FEW_TRIALS,
    NOT_SIGNIFICANT,
    OFF,
    OPPOSITE,
    SHOWN,
    STRADDLES,
    bytes_growth,
    every_pair,
    everywhere,
    faster,
    measure,
    on_network,
    outcome,
    ratio_rule,
    significance,
    smaller,
    tally,
)
from rpcarena.suites.model import HOLDS, NOT_COMPARABLE, Claim, Judgement, Measured, Part, Suite

JSON, JAVASER, MML = "rest-jackson", "http-javaser", "typed-json-java"
ITEMS = ("infobip.items0", "infobip.items10", "infobip.items100")
LINK = "rtt=0.3ms,jitter=0.05ms,rate=100mbit"  # a 100 Mbit/s LAN


GAP = f"{ratio_rule(JSON, MML, 'mean')}, written JSON/MML"
EQUAL = 1.10  # 'igualaron': JSON/MML within 10% either way counts as equal (an equivalence margin)
CATCH_UP_RULE = (f"{GAP}, at 10 and at 100 items, per concurrency level; holds when, at every level, the interval "
                 f"at 100 lies inside {1 / EQUAL:.3g}x to {EQUAL:.3g}x ('igualaron': equal within the equivalence "
                 f"margin of {EQUAL - 1:.0%}) and below the interval at 10; one wholly outside the margin on the "
                 "other side of the 10-item gap (HTTP ahead, or MML still ahead by less) holds in direction, "
                 f"magnitude differs; {stats.MIN_TRIALS} or more trials each")
SHRINK_RULE = (f"{GAP}, on loopback and over the link, at 0 and 10 items, per level; holds when, in every cell, "
               "the network's interval is still above 1 (MML still ahead) and lies wholly below loopback's; "
               f"{stats.MIN_TRIALS} or more trials each")
NAME = "mean latency"


def http_catches_up(ev: Evidence) -> Judgement:
    """At 100 items HTTP/JSON equals MML (JSON/MML inside the equivalence margin), having been behind at 10
    items, at every level; past MML or still behind by less, it caught up in direction only."""
    gone = ev.absent([MML, JSON], ["infobip.items10", "infobip.items100"])
    if gone:
        return Judgement((), NOT_COMPARABLE, gone, CATCH_UP_RULE)
    rows: list[Measured] = []
    said = {}
    for n in ev.levels(MML, "infobip.items100"):
        small, large = (ev.ratio(JSON, MML, w, "mean", n) for w in ("infobip.items10", "infobip.items100"))
        if small and large:
            said[f"x{n}"] = caught_up(small, large)
            rows += [measure(f"JSON/MML x{n} at 10 items", NAME, small, ""),
                     measure(f"JSON/MML x{n} at 100 items", NAME, large, significance(said[f"x{n}"]))]
    if not rows:
        return Judgement((), NOT_COMPARABLE, "no level measured both sizes", CATCH_UP_RULE)
    found = tally(said, "levels")
    return Judgement(tuple(rows), found.verdict, f"equal at 100 items: {found.why}", CATCH_UP_RULE, found.share)


def caught_up(at_10: stats.Ratio, at_100: stats.Ratio) -> str:
    """Where JSON/MML at 100 items stands: equal within the margin (SHOWN), past MML or still behind but
    by less than at 10 (OFF), across the margin's edge (STRADDLES), or no smaller than at 10."""
    if at_100.interval is None or at_10.interval is None:
        return FEW_TRIALS
    low, high = at_100.interval.low, at_100.interval.high
    if 1 / EQUAL <= low and high <= EQUAL and smaller(at_10, at_100) == SHOWN:
        return SHOWN
    if high < 1 / EQUAL:
        return f"{OFF} equal: HTTP/JSON overtook MML"
    if smaller(at_10, at_100) != SHOWN:
        return smaller(at_10, at_100)
    if low > EQUAL:
        return f"{OFF} equal: MML still ahead, by less than at 10"
    return f"{STRADDLES} the {EQUAL - 1:.0%} margin"


def lead_shrinks(ev: Evidence) -> Judgement:
    """MML still leads over the network (JSON/MML mean above 1) but by significantly less than on
    loopback, at 0 and 10 items, at every level measured in both settings ('sigue liderando ... pero
    con un margen menor')."""
    net = ev.on_link()
    gone = ev.absent([MML, JSON], list(ITEMS[:2])) or net.absent([MML, JSON], list(ITEMS[:2]))
    if gone:
        return Judgement((), NOT_COMPARABLE, gone, SHRINK_RULE)
    rows: list[Measured] = []
    said = {}
    for w in ITEMS[:2]:
        for n in ev.levels(MML, w):
            local, remote = ev.ratio(JSON, MML, w, "mean", n), net.ratio(JSON, MML, w, "mean", n)
            if local and remote:
                ahead, less = outcome(remote), smaller(local, remote)
                said[f"{w} x{n}"] = both(ahead, less)
                rows += [measure(f"JSON/MML {w} x{n} on loopback", NAME, local),
                         measure(f"JSON/MML {w} x{n} over the link", NAME, remote,
                                 f"{significance(ahead)}; smaller than on loopback: {less}")]
    if not rows:
        return Judgement((), NOT_COMPARABLE, "no cell measured in both settings", SHRINK_RULE)
    found = tally(said, "cells")
    return Judgement(tuple(rows), found.verdict, f"MML still ahead, by less over the network: {found.why}",
                     SHRINK_RULE, found.share)


def table_turned(ev: Evidence) -> Judgement:
    """JSON ahead of MML at 100 items over the network, with loopback beside: 'the table turned' is said
    against loopback, so a JSON lead there too means the network did not turn it."""
    remote = on_network(faster(JSON, MML, ITEMS[2:], statistic="mean"))(ev)
    local = faster(JSON, MML, ITEMS[2:], statistic="mean")(ev)
    beside = tuple(replace(m, what=f"on loopback: {m.what}", significance=f"{m.significance}; beside (not judged)")
                   for m in local.measured)
    turned = "" if local.verdict != HOLDS else "; JSON leads on loopback too, so the network did not turn the table"
    return replace(remote, measured=remote.measured + beside,
                   why=f"{remote.why}\non loopback: {local.says()}: {local.why}{turned}")


def both(first: str, second: str) -> str:
    """Two outcomes of one cell that must both be shown: the opposite or too few trials in either
    decides, then not significant; shown only when both are."""
    for said in (FEW_TRIALS, OPPOSITE, NOT_SIGNIFICANT):
        if said in (first, second):
            return said
    return SHOWN


def _part(title: str, **network: str) -> Part:
    return Part(title, (JSON, JAVASER, MML), ITEMS, calls=5000, quick_calls=300, clients=(1, 32, 64, 128),
                quick_clients=(1, 32), warmup_s=2.0, quick_warmup_s=0.3, **network)


SUITE = Suite(
    name="infobip2016", seed="004 infobip2016 (HTTP/JSON vs Java serialization vs MML)",
    summary="echo a list of 0/10/100 small objects with 1/32/64/128 clients: Jackson, Java serialization, "
            "typed JSON (MML); on loopback, and over a 100 Mbit/s LAN link with HTTP through HAProxy",
    quick_minutes=60.5,  # --quick, whole, on 2 idle CPUs: 24.5 measured 2026-11-26, + its 108 Java-client
    # cells x ~20 s of JIT warm-up added since (estimated: a Java driver now warms up until its JIT is quiet)
    parts=(_part("echo N items, closed loop, loopback"),
           _part("echo N items, closed loop, 100 Mbit/s LAN link, HTTP via HAProxy, MML direct", via="haproxy",
                 link=LINK)),
    claims=(
        Claim("Localhost: MML beats both HTTP protocols for small and medium payloads (0 and 10 items), at every "
              "number of clients", "'MML es el ganador obvio sin importar la cantidad de clientes'",
              every_pair(((MML, JSON), (MML, JAVASER)), lambda mml, http: faster(mml, http, ITEMS[:2], "mean"))),
        Claim("Localhost: HTTP/JSON catches up with MML at 100 items", "'los protocolos basados en HTTP igualaron al "
              "MML' at 100 items", http_catches_up),
        Claim("Java serialization is slower than JSON everywhere: every size and level, on loopback and over the "
              "network", "'inferior en todos los escenarios de prueba'",
              everywhere(faster(JSON, JAVASER, ITEMS, statistic="mean"))),
        Claim("Network (HAProxy; here a 100 Mbit/s LAN link): MML still leads for small and medium payloads, by "
              "less than on localhost", "'MML sigue liderando ... pero con un margen menor'", lead_shrinks),
        Claim("Network (HAProxy; here a 100 Mbit/s LAN link): JSON over HTTP beats MML at large payloads",
              "'para cargas grandes, la tabla se invirtió': JSON ahead at 100 items", table_turned),
        Claim("Network: MML's type tags inflate the bytes on the wire", "more bytes as the list grows",
              on_network(bytes_growth(MML, JSON, ITEMS[0], ITEMS[2], "type tags on every object"))),
    ),
)
