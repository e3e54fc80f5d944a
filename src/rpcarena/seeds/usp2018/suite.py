"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese)."""

from __future__ import annotations

from rpcarena.analysis import stats
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import faster, not_comparable, outcome, ratio_rule, smaller, tally
from rpcarena.suites.model import NOT_COMPARABLE, Claim, Judgement, Part, Suite

FUNCTIONS = ("usp.void", "usp.bool", "usp.int32", "usp.int64", "usp.str32", "usp.str512", "usp.str1024",
             "usp.ints200", "usp.floats200", "usp.strings200", "usp.person", "usp.distance")
LOCAL_WIN = FUNCTIONS[:-1]  # function 12 has claims of its own
GAP_RULE = (f"{ratio_rule('rpyc', 'grpc-py', 'median')}, and rpyc-tuple/grpc-py alike, on usp.distance; most of "
            "the gap is removed when rpyc-tuple's whole interval of excess over 1 lies below half of rpyc's; "
            f"still slower when rpyc-tuple/grpc-py's interval is above 1; {stats.MIN_TRIALS} or more trials each")


def tuples_close_most_of_the_gap(ev: Evidence) -> Judgement:
    """Two parts: rpyc-tuple's excess over gRPC is under half of rpyc's (intervals apart), and it is
    still significantly slower than gRPC; each part is shown, shown false, or not significant."""
    gone = ev.absent(["grpc-py", "rpyc", "rpyc-tuple"], ["usp.distance"])
    by_ref, by_value = (ev.ratio(c, "grpc-py", "usp.distance") for c in ("rpyc", "rpyc-tuple"))
    if gone or by_ref is None or by_value is None:
        return Judgement((), NOT_COMPARABLE, gone or "function 12 not measured for all three", GAP_RULE)
    measured = (f"rpyc/grpc-py median usp.distance (lists): {by_ref.text()}",
                f"rpyc-tuple/grpc-py median usp.distance (tuples): {by_value.text()}")
    found = tally({"most of the gap removed": _half_closed(by_ref, by_value),
                   "still slower than gRPC": outcome(by_value)}, "parts")
    return Judgement(measured, found.verdict, found.why, GAP_RULE, found.share)


def _half_closed(by_ref: stats.Ratio, by_value: stats.Ratio) -> str:
    """Whether rpyc-tuple's ratio lies below half of rpyc's excess over 1 (1 + (r - 1) / 2)."""
    half = by_ref.interval.scaled(0.5, 0.5) if by_ref.interval else None
    return smaller(stats.Ratio(0.5 + by_ref.estimate / 2, half, by_ref.trials), by_value)


SUITE = Suite(
    name="usp2018", seed="000 usp2018 (gRPC vs RPyC, Python)",
    summary="12 functions x gRPC, RPyC (lists by reference) and RPyC with tuples; 512 calls each, local",
    parts=(Part("twelve functions, sequential calls", ("grpc-py", "rpyc", "rpyc-tuple"), FUNCTIONS,
                calls=512, quick_calls=200),),
    claims=(
        Claim("Locally, RPyC was faster than gRPC (functions 1-11; 12 has claims of its own)",
              "local run: RPyC below gRPC in the boxplots and bars",
              faster("rpyc", "grpc-py", LOCAL_WIN, share=0.75)),
        Claim("Remotely (over a network), gRPC was faster than RPyC",
              "remote run: gRPC below RPyC",
              not_comparable("this suite runs client and server on one host; the seed's remote run needs two "
                             "machines", faster("grpc-py", "rpyc", LOCAL_WIN, share=0.75))),
        Claim("Function 12 (distance of two 3-D vectors) with Python lists was about 10x slower on RPyC than "
              "on gRPC, because RPyC passes lists by reference (one round trip per element)",
              "about 10x", faster("grpc-py", "rpyc", ("usp.distance",), seed_ratio=10.0)),
        Claim("Passing tuples (by value) removed most of that gap, but RPyC stayed slower than gRPC",
              "tuples: most of the 10x gone, still slower", tuples_close_most_of_the_gap),
    ),
)
