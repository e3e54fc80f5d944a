"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese)."""

from __future__ import annotations

import statistics

from rpcarena.analysis import stats
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import Judge, faster, on_network, outcome, ratio_rule, smaller, tally
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, UNDECIDED, Claim, Judgement, Part, Suite

FUNCTIONS = ("usp.void", "usp.bool", "usp.int32", "usp.int64", "usp.str32", "usp.str512", "usp.str1024",
             "usp.ints200", "usp.floats200", "usp.strings200", "usp.person", "usp.distance")
LOCAL_WIN = FUNCTIONS[:-1]  # function 12 has claims of its own
# RPyC as users get it (rpyc.connect: no TCP_NODELAY), and the same with TCP_NODELAY on the client
SYSTEMS = ("grpc-py", "rpyc", "rpyc-tuple", "rpyc-nodelay", "rpyc-tuple-nodelay")
LINK = "wifi"  # the seed's remote run: a Wi-Fi laptop to a wired PC (docs/network.md)


def tuples_close_most_of_the_gap(lists: str, tuples: str) -> Judge:
    """Two parts: `tuples`'s excess over gRPC is under half of `lists`'s (intervals apart), and it is
    still significantly slower than gRPC; each part is shown, shown false, or not significant."""
    rule = (f"{ratio_rule(lists, 'grpc-py', 'median')}, and {tuples}/grpc-py alike, on usp.distance; most of "
            f"the gap is removed when {tuples}'s whole interval of excess over 1 lies below half of {lists}'s; "
            f"still slower when {tuples}/grpc-py's interval is above 1; {stats.MIN_TRIALS} or more trials each")

    def judge(ev: Evidence) -> Judgement:
        gone = ev.absent(["grpc-py", lists, tuples], ["usp.distance"])
        by_ref, by_value = (ev.ratio(c, "grpc-py", "usp.distance") for c in (lists, tuples))
        if gone or by_ref is None or by_value is None:
            return Judgement((), NOT_COMPARABLE, gone or "function 12 not measured for all three", rule)
        measured = (f"{lists}/grpc-py median usp.distance (lists): {by_ref.text()}",
                    f"{tuples}/grpc-py median usp.distance (tuples): {by_value.text()}")
        found = tally({"most of the gap removed": _half_closed(by_ref, by_value),
                       "still slower than gRPC": outcome(by_value)}, "parts")
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


def _half_closed(by_ref: stats.Ratio, by_value: stats.Ratio) -> str:
    """Whether the tuples' ratio lies below half of the lists' excess over 1 (1 + (r - 1) / 2)."""
    half = by_ref.interval.scaled(0.5, 0.5) if by_ref.interval else None
    return smaller(stats.Ratio(0.5 + by_ref.estimate / 2, half, by_ref.trials), by_value)


NAGLE_RULE = ("rpyc/rpyc-nodelay median on usp.distance over trials (the same server; only the client's "
              "TCP_NODELAY differs): holds when its interval lies above 2, the stall at least doubling the call; "
              "rpyc-nodelay/grpc-py is then the netrefs' own cost")


def nagle_not_netrefs(ev: Evidence) -> Judgement:
    """rpyc as users get it (no TCP_NODELAY) against rpyc-nodelay, and rpyc-nodelay against gRPC, on
    function 12: which part of the gap is Nagle with delayed ACK, which part is netref round trips."""
    gone = ev.absent(["grpc-py", "rpyc", "rpyc-nodelay"], ["usp.distance"])
    nagle, netrefs = ev.ratio("rpyc", "rpyc-nodelay", "usp.distance"), ev.ratio("rpyc-nodelay", "grpc-py",
                                                                                "usp.distance")
    if gone or nagle is None or netrefs is None:
        return Judgement((), NOT_COMPARABLE, gone or "function 12 not measured for the three", NAGLE_RULE)
    measured = (f"function 12 median: {_median_ms(ev, 'rpyc')} for rpyc, {_median_ms(ev, 'rpyc-nodelay')} "
                "for rpyc-nodelay",
                f"rpyc/rpyc-nodelay median usp.distance (Nagle with delayed ACK): {nagle.text()}",
                f"rpyc-nodelay/grpc-py median usp.distance (netref round trips): {netrefs.text()}")
    if not nagle.judged:
        return Judgement(measured, UNDECIDED, "too few trials to say", NAGLE_RULE)
    if nagle.interval is not None and nagle.interval.low > 2:
        return Judgement(measured, HOLDS, "without TCP_NODELAY most of the call is the delayed-ACK timer",
                         NAGLE_RULE)
    return Judgement(measured, FAILS, "TCP_NODELAY does not at least halve function 12 here", NAGLE_RULE)


def _median_ms(ev: Evidence, contender: str) -> str:
    g = ev.get(contender, "usp.distance")
    medians = [c.latency["p50_us"] for c in g.cells if c.latency.get("count")] if g else []
    return f"{statistics.median(medians) / 1e3:.2f} ms" if medians else "-"


SUITE = Suite(
    name="usp2018", seed="000 usp2018 (gRPC vs RPyC, Python)",
    summary="12 functions x gRPC, RPyC (lists by reference) and RPyC with tuples, each RPyC also with "
            f"TCP_NODELAY; 512 calls each, on one host and across a {LINK} link",
    parts=(Part("twelve functions, sequential calls, one host", SYSTEMS, FUNCTIONS, calls=512, quick_calls=200),
           Part(f"twelve functions, sequential calls, across a {LINK} link (the seed's remote run)", SYSTEMS,
                FUNCTIONS, calls=512, quick_calls=60, link=LINK)),
    claims=(
        Claim("Locally, RPyC was faster than gRPC (functions 1-11; 12 has claims of its own)",
              "local run: RPyC below gRPC in the boxplots and bars",
              faster("rpyc", "grpc-py", LOCAL_WIN, share=0.75)),
        Claim(f"Remotely (over a network; here a {LINK} link), gRPC was faster than RPyC",
              "remote run: gRPC below RPyC", on_network(faster("grpc-py", "rpyc", LOCAL_WIN, share=0.75))),
        Claim("Function 12 (distance of two 3-D vectors) with Python lists was about 10x slower on RPyC than "
              "on gRPC, because RPyC passes lists by reference (one round trip per element); judged with "
              "TCP_NODELAY on (rpyc-nodelay), so that only the netrefs count",
              "about 10x", faster("grpc-py", "rpyc-nodelay", ("usp.distance",), seed_ratio=10.0)),
        Claim(f"(rpcarena) The same function 12 claim across the {LINK} link, where each netref round trip costs "
              "the link's round trip", "about 10x",
              on_network(faster("grpc-py", "rpyc-nodelay", ("usp.distance",), seed_ratio=10.0))),
        Claim("Passing tuples (by value) removed most of that gap, but RPyC stayed slower than gRPC",
              "tuples: most of the 10x gone, still slower",
              tuples_close_most_of_the_gap("rpyc-nodelay", "rpyc-tuple-nodelay")),
        Claim("(rpcarena) As users get it, RPyC's function 12 also waits on delayed ACKs: rpyc.connect leaves "
              "TCP_NODELAY off, so each small write waits up to 40 ms; that is Nagle, not netrefs",
              "not in the seed", nagle_not_netrefs),
    ),
)
