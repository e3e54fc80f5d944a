"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese).

The general claims (RPyC faster locally, gRPC faster remotely) are judged on `rpyc-tuple`, which
passes every argument and result by value, as gRPC does. Plain `rpyc` passes lists and objects by
reference: its echoes of functions 8-11 hand back a netref to the client's own object, so about
300 bytes cross where gRPC moves the whole array; those cells move no data and are left out of
the verdict (MOVES_NO_DATA). Functions 1-7 pass scalars and strings, by value in both.
Function 12's netrefs are the seed's own subject, judged on `rpyc-nodelay` against its tuples.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from rpcarena.analysis import stats
from rpcarena.suites.evidence import TRIMMED_MEAN, Evidence
from rpcarena.suites.judges import (
    FEW_TRIALS,
    MEASURES,
    UP_TO,
    Judge,
    about,
    band,
    faster,
    measure,
    on_network,
    outcome,
    ratio_rule,
    tally,
)
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, UNDECIDED, Claim, Judgement, Measured, Part, Suite

FUNCTIONS = ("usp.void", "usp.bool", "usp.int32", "usp.int64", "usp.str32", "usp.str512", "usp.str1024",
             "usp.ints200", "usp.floats200", "usp.strings200", "usp.person", "usp.distance")
LOCAL_WIN = FUNCTIONS[:-1]  # function 12 has claims of its own
BY_VALUE = "rpyc-tuple"  # rpyc.connect as users get it (no TCP_NODELAY), every value passed by value
MOVES_NO_DATA = ("left out: rpyc's echoes of functions 8-11 (lists and a Person) hand back a netref to the "
                 "client's own object, so no data moves (about 300 bytes a call against the whole array for "
                 "gRPC); judged on rpyc-tuple, which passes them by value as gRPC does")
# RPyC as users get it (rpyc.connect: no TCP_NODELAY), and the same with TCP_NODELAY on the client
SYSTEMS = ("grpc-py", "rpyc", "rpyc-tuple", "rpyc-nodelay", "rpyc-tuple-nodelay")
LINK = "wifi"  # the seed's remote run: a Wi-Fi laptop to a wired PC (docs/network.md)
DISTANCE = "usp.distance"
STATISTIC = TRIMMED_MEAN  # the seed dropped the calls below p2 and above p98 before every figure


def tuples_close_the_gap(lists: str, tuples: str) -> Judge:
    """The seed's two findings on function 12 with tuples: the call about an order of magnitude faster
    than with lists ('diminuir o tempo de execução em uma ordem de grandeza'), and still slower than
    gRPC ('ainda não foi suficiente para superar ... gRPC'); each part shown, shown false, or not
    significant."""
    rule = (f"{ratio_rule(lists, tuples, STATISTIC)} on usp.distance, holding when its interval reaches "
            f"{'x to '.join(f'{b:.3g}' for b in band(10.0))}x ('an order of magnitude', about 10x); and "
            f"{ratio_rule(tuples, 'grpc-py', STATISTIC)}, holding when its interval is above 1; "
            f"{stats.MIN_TRIALS} or more trials each")

    def judge(ev: Evidence) -> Judgement:
        gone = ev.absent(["grpc-py", lists, tuples], [DISTANCE])
        gain, still = ev.ratio(lists, tuples, DISTANCE, STATISTIC), ev.ratio(tuples, "grpc-py", DISTANCE, STATISTIC)
        if gone or gain is None or still is None:
            return Judgement((), NOT_COMPARABLE, gone or "function 12 not measured for all three", rule)
        said = {"an order of magnitude faster with tuples": about(gain, 10.0),
                "still slower than gRPC": outcome(still)}
        name = MEASURES[STATISTIC][0]
        measured = (measure(f"{lists}/{tuples} {DISTANCE}", name, gain, said["an order of magnitude faster with "
                                                                              "tuples"]),
                    measure(f"{tuples}/grpc-py {DISTANCE}", name, still))
        found = tally(said, "parts", parts=True)
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


NAGLE_RULE = ("rpyc/rpyc-nodelay median on usp.distance over trials (the same server; only the client's "
              "TCP_NODELAY differs): holds when its interval lies above 2, the stall at least doubling the call; "
              "does not hold when it lies below 2; cannot tell when it straddles 2; rpyc-nodelay/grpc-py is "
              "then the netrefs' own cost")


def nagle_not_netrefs(ev: Evidence) -> Judgement:
    """rpyc as users get it (no TCP_NODELAY) against rpyc-nodelay, and rpyc-nodelay against gRPC, on
    function 12: which part of the gap is Nagle with delayed ACK, which part is netref round trips."""
    gone = ev.absent(["grpc-py", "rpyc", "rpyc-nodelay"], [DISTANCE])
    nagle, netrefs = ev.ratio("rpyc", "rpyc-nodelay", DISTANCE), ev.ratio("rpyc-nodelay", "grpc-py", DISTANCE)
    if gone or nagle is None or netrefs is None:
        return Judgement((), NOT_COMPARABLE, gone or "function 12 not measured for the three", NAGLE_RULE)
    said = _against_two(nagle)
    measured = (Measured("function 12", "median latency",
                         value=f"{_median_ms(ev, 'rpyc')} for rpyc, {_median_ms(ev, 'rpyc-nodelay')} for rpyc-nodelay"),
                measure("rpyc/rpyc-nodelay usp.distance (Nagle with delayed ACK)", "median latency", nagle, said),
                measure("rpyc-nodelay/grpc-py usp.distance (netref round trips)", "median latency", netrefs))
    if not nagle.judged:
        return Judgement(measured, UNDECIDED, stats.CANNOT_TELL, NAGLE_RULE)
    if said == ABOVE_TWO:
        return Judgement(measured, HOLDS, "without TCP_NODELAY most of the call is the delayed-ACK timer",
                         NAGLE_RULE)
    if said == BELOW_TWO:
        return Judgement(measured, FAILS, "TCP_NODELAY does not halve function 12 here", NAGLE_RULE)
    return Judgement(measured, UNDECIDED, "the interval straddles 2: whether TCP_NODELAY halves the call is "
                                          "not settled by these trials", NAGLE_RULE)


ABOVE_TWO, BELOW_TWO, ACROSS_TWO = "significant: above 2", "significant: below 2", "interval straddles 2"


def _against_two(ratio: stats.Ratio) -> str:
    """Where a ratio's interval stands against 2 (Nagle's stall at least doubling the call)."""
    if ratio.interval is None:
        return FEW_TRIALS
    if ratio.interval.low > 2:
        return ABOVE_TWO
    return BELOW_TWO if ratio.interval.high < 2 else ACROSS_TWO


def by_value(judge: Judge) -> Judge:
    """A general claim judged on the by-value cells, saying why rpyc's by-reference cells are left out."""
    def judged(ev: Evidence) -> Judgement:
        found = judge(ev)
        return replace(found, why=f"{found.why}\n{MOVES_NO_DATA}")
    return judged


def _median_ms(ev: Evidence, contender: str) -> str:
    g = ev.get(contender, DISTANCE)
    medians = [c.latency["p50_us"] for c in g.cells if c.latency.get("count")] if g else []
    return f"{statistics.median(medians) / 1e3:.2f} ms" if medians else "-"


SUITE = Suite(
    name="usp2018", seed="000 usp2018 (gRPC vs RPyC, Python)",
    summary="12 functions x gRPC, RPyC (lists by reference) and RPyC with tuples, each RPyC also with "
            f"TCP_NODELAY; 512 calls each, on one host and across a {LINK} link",
    quick_minutes=13.0,  # --quick, whole, on 2 idle CPUs (measured 2026-11-26)
    parts=(Part("twelve functions, sequential calls, one host", SYSTEMS, FUNCTIONS, calls=512, quick_calls=200),
           Part(f"twelve functions, sequential calls, across a {LINK} link (the seed's remote run)", SYSTEMS,
                FUNCTIONS, calls=512, quick_calls=60, link=LINK)),
    claims=(
        Claim("Locally, RPyC was faster than gRPC (functions 1-11, by value: rpyc-tuple; 12 has claims of its "
              "own)", "local run: RPyC below gRPC in the boxplots and bars (figure 12), 'em geral'",
              by_value(faster(BY_VALUE, "grpc-py", LOCAL_WIN, STATISTIC, share=0.75, seed_had_nagle=True))),
        Claim(f"Remotely (over a network; here a {LINK} link), gRPC was faster than RPyC (functions 1-11, by "
              "value: rpyc-tuple)", "remote run: gRPC below RPyC even within the error bars (figure 13)",
              by_value(on_network(faster("grpc-py", BY_VALUE, LOCAL_WIN, STATISTIC, share=0.75,
                                         seed_had_nagle=True)))),
        Claim("Function 12 (distance of two 3-D vectors) with Python lists was up to 10x slower on RPyC than "
              "on gRPC, because RPyC passes lists by reference (one round trip per element); judged with "
              "TCP_NODELAY on (rpyc-nodelay), so that only the netrefs count",
              "'até uma ordem de grandeza': up to an order of magnitude, local run (figure 14)",
              faster("grpc-py", "rpyc-nodelay", (DISTANCE,), STATISTIC, seed_ratio=10.0, bound=UP_TO)),
        Claim(f"(rpcarena) The same function 12 claim across the {LINK} link, where each netref round trip costs "
              "the link's round trip", "not in the seed: its function 12 figures are local",
              on_network(faster("grpc-py", "rpyc-nodelay", (DISTANCE,), STATISTIC, seed_ratio=10.0, bound=UP_TO))),
        Claim("Passing tuples (by value) made function 12 an order of magnitude faster, but RPyC stayed slower "
              "than gRPC", "tuples an order of magnitude faster than lists (figure 15), still slower than gRPC "
              "(figure 16)", tuples_close_the_gap("rpyc-nodelay", "rpyc-tuple-nodelay")),
        Claim("(rpcarena) As users get it, RPyC's function 12 also waits on delayed ACKs: rpyc.connect leaves "
              "TCP_NODELAY off, so each small write waits up to 40 ms; that is Nagle, not netrefs",
              "not in the seed", nagle_not_netrefs),
    ),
)
