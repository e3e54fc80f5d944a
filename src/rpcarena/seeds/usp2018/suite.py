"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese)."""

from __future__ import annotations

from rpcarena.suites.evidence import Evidence, ratio_text
from rpcarena.suites.judges import faster, not_comparable
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Claim, Judgement, Part, Suite

FUNCTIONS = ("usp.void", "usp.bool", "usp.int32", "usp.int64", "usp.str32", "usp.str512", "usp.str1024",
             "usp.ints200", "usp.floats200", "usp.strings200", "usp.person", "usp.distance")
LOCAL_WIN = FUNCTIONS[:-1]  # function 12 has claims of its own


def tuples_close_most_of_the_gap(ev: Evidence) -> Judgement:
    """rpyc-tuple is still slower than gRPC on function 12, but by less than half of rpyc's gap."""
    gone = ev.absent(["grpc-py", "rpyc", "rpyc-tuple"], ["usp.distance"])
    by_ref, by_value = (ev.ratio(c, "grpc-py", "usp.distance") for c in ("rpyc", "rpyc-tuple"))
    if gone or by_ref is None or by_value is None:
        return Judgement("-", NOT_COMPARABLE, gone or "function 12 not measured for all three")
    measured = f"median over grpc-py: rpyc (lists) {ratio_text(by_ref)}, rpyc-tuple {ratio_text(by_value)}"
    still_slower = by_value.low > 1
    most_closed = by_value.high - 1 < (by_ref.low - 1) / 2
    if still_slower and most_closed:
        return Judgement(measured, HOLDS, "tuples remove more than half the gap, and are still significantly slower")
    why = "tuples are not significantly slower than gRPC" if not still_slower else \
        "tuples do not remove at least half the gap"
    return Judgement(measured, FAILS, why)


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
