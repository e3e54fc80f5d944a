"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese)."""

from __future__ import annotations

from rpcarena.suites.evidence import Evidence, ratio_text
from rpcarena.suites.judges import Judge, faster, on_network
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Claim, Judgement, Part, Suite

FUNCTIONS = ("usp.void", "usp.bool", "usp.int32", "usp.int64", "usp.str32", "usp.str512", "usp.str1024",
             "usp.ints200", "usp.floats200", "usp.strings200", "usp.person", "usp.distance")
LOCAL_WIN = FUNCTIONS[:-1]  # function 12 has claims of its own
# RPyC as users get it (rpyc.connect: no TCP_NODELAY), and the same with TCP_NODELAY on the client
SYSTEMS = ("grpc-py", "rpyc", "rpyc-tuple", "rpyc-nodelay", "rpyc-tuple-nodelay")
LINK = "wifi"  # the seed's remote run: a Wi-Fi laptop to a wired PC (docs/network.md)


def tuples_close_most_of_the_gap(lists: str, tuples: str) -> Judge:
    """`tuples` is still slower than gRPC on function 12, but by less than half of `lists`'s gap."""
    def judge(ev: Evidence) -> Judgement:
        gone = ev.absent(["grpc-py", lists, tuples], ["usp.distance"])
        by_ref, by_value = (ev.ratio(c, "grpc-py", "usp.distance") for c in (lists, tuples))
        if gone or by_ref is None or by_value is None:
            return Judgement("-", NOT_COMPARABLE, gone or "function 12 not measured for all three")
        measured = f"median over grpc-py: {lists} {ratio_text(by_ref)}, {tuples} {ratio_text(by_value)}"
        still_slower = by_value.low > 1
        most_closed = by_value.high - 1 < (by_ref.low - 1) / 2
        if still_slower and most_closed:
            return Judgement(measured, HOLDS, "tuples remove more than half the gap, and are still significantly "
                                              "slower")
        why = "tuples are not significantly slower than gRPC" if not still_slower else \
            "tuples do not remove at least half the gap"
        return Judgement(measured, FAILS, why)
    return judge


def nagle_not_netrefs(ev: Evidence) -> Judgement:
    """rpyc as users get it (no TCP_NODELAY) against rpyc-nodelay, and rpyc-nodelay against gRPC, on
    function 12: which part of the gap is Nagle with delayed ACK, which part is netref round trips."""
    gone = ev.absent(["grpc-py", "rpyc", "rpyc-nodelay"], ["usp.distance"])
    nagle, netrefs = ev.ratio("rpyc", "rpyc-nodelay", "usp.distance"), ev.ratio("rpyc-nodelay", "grpc-py",
                                                                                "usp.distance")
    if gone or nagle is None or netrefs is None:
        return Judgement("-", NOT_COMPARABLE, gone or "function 12 not measured for the three")
    default, fixed = (ev.get(c, "usp.distance") for c in ("rpyc", "rpyc-nodelay"))
    ms = {c: g.interval("median").estimate / 1e3 for c, g in (("rpyc", default), ("rpyc-nodelay", fixed)) if g}
    measured = (f"function 12 median: rpyc {ms.get('rpyc', 0):.2f} ms, rpyc-nodelay {ms.get('rpyc-nodelay', 0):.2f}"
                f" ms; rpyc/rpyc-nodelay {ratio_text(nagle)} (Nagle with delayed ACK); rpyc-nodelay/grpc-py "
                f"{ratio_text(netrefs)} (netref round trips)")
    if nagle.low > 2:
        return Judgement(measured, HOLDS, "without TCP_NODELAY most of the time is the delayed-ACK timer; the "
                                          "netref cost is the rpyc-nodelay/grpc-py ratio")
    return Judgement(measured, FAILS, "TCP_NODELAY does not change function 12 significantly here")


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
        Claim("Passing tuples (by value) removed most of that gap, but RPyC stayed slower than gRPC",
              "tuples: most of the 10x gone, still slower",
              tuples_close_most_of_the_gap("rpyc-nodelay", "rpyc-tuple-nodelay")),
        Claim("(rpcarena) As users get it, RPyC's function 12 also waits on delayed ACKs: rpyc.connect leaves "
              "TCP_NODELAY off, so each small write waits up to 40 ms; that is Nagle, not netrefs",
              "not in the seed", nagle_not_netrefs),
    ),
)
