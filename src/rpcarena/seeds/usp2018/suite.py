"""usp2018: gRPC vs RPyC in Python, twelve functions, 512 calls each (seed 000, Portuguese).

The general claims (RPyC faster locally, gRPC faster remotely) are judged on `rpyc-tuple`, which
passes every argument and result by value, as gRPC does. Plain `rpyc` passes lists and objects by
reference: its echoes of functions 8-11 hand back a netref to the client's own object, so about
300 bytes cross where gRPC moves the whole array; those cells move no data and are left out of
the verdict (MOVES_NO_DATA). Functions 1-7 pass scalars and strings, by value in both.
Function 12's netrefs are the seed's own subject, judged on `rpyc-nodelay` (the netrefs alone), with
plain `rpyc` (the seed's own setup, whose calls Nagle's delayed ACKs stall) shown beside.
"""

from __future__ import annotations

from rpcarena.suites.evidence import TRIMMED_MEAN
from rpcarena.suites.forms import About, AtLeast, UpTo
from rpcarena.suites.model import Claim, Part, Suite
from rpcarena.suites.operands import Comparison, Measure
from rpcarena.suites.rules import Beside, Rule, pairs
from rpcarena.suites.setting import LOOPBACK, Setting

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
REMOTE = Setting(LINK)
DISTANCE = "usp.distance"
STATISTIC = TRIMMED_MEAN  # the seed dropped the calls below p2 and above p98 before every figure
IN_GENERAL = 0.75  # 'em geral': RPyC faster in general, not in every function
SEEDS_OWN = "the seed's own setup: plain rpyc.connect, TCP_NODELAY off, so Nagle's delayed ACKs stall its calls"


def _on_distance(slower: str, faster: str, where: Setting, statistic: str = STATISTIC) -> Comparison:
    return Comparison(Measure(slower, DISTANCE, 1, where, statistic), Measure(faster, DISTANCE, 1, where, statistic))


def _function_12(where: Setting) -> Rule:
    """Lists up to 10x slower on RPyC than on gRPC, judged with TCP_NODELAY on (the netrefs alone); the
    seed's own setup, plain rpyc.connect, beside."""
    return Rule(pairs([("rpyc-nodelay", "grpc-py")], (DISTANCE,), UpTo(10.0), STATISTIC, where),
                beside=(Beside(_on_distance("rpyc", "grpc-py", where), SEEDS_OWN),))


SUITE = Suite(
    name="usp2018", seed="000 usp2018 (gRPC vs RPyC, Python)",
    summary="12 functions x gRPC, RPyC (lists by reference) and RPyC with tuples, each RPyC also with "
            f"TCP_NODELAY; 512 calls each, on one host and across a {LINK} link",
    # --quick, whole, on 2 idle CPUs: 4.0 measured 2026-11-29 (156 cells, the wifi link's round trips)
    quick_minutes=4,
    parts=(Part("twelve functions, sequential calls, one host", SYSTEMS, FUNCTIONS, calls=512, quick_calls=200),
           Part(f"twelve functions, sequential calls, across a {LINK} link (the seed's remote run)", SYSTEMS,
                FUNCTIONS, calls=512, quick_calls=60, link=LINK)),
    claims=(
        Claim("Locally, RPyC was faster than gRPC (functions 1-11, by value: rpyc-tuple; 12 has claims of its "
              "own)", "local run: RPyC below gRPC in the boxplots and bars (figure 12), 'em geral'",
              Rule(pairs([("grpc-py", BY_VALUE)], LOCAL_WIN, statistic=STATISTIC), need=IN_GENERAL,
                   seed_had_nagle=True, note=MOVES_NO_DATA)),
        Claim(f"Remotely (over a network; here a {LINK} link), gRPC was faster than RPyC (functions 1-11, by "
              "value: rpyc-tuple)", "remote run: gRPC below RPyC even within the error bars (figure 13)",
              Rule(pairs([(BY_VALUE, "grpc-py")], LOCAL_WIN, statistic=STATISTIC, where=REMOTE), need=IN_GENERAL,
                   seed_had_nagle=True, note=MOVES_NO_DATA)),
        Claim("Function 12 (distance of two 3-D vectors) with Python lists was up to 10x slower on RPyC than "
              "on gRPC, because RPyC passes lists by reference (one round trip per element); judged with "
              "TCP_NODELAY on (rpyc-nodelay), so that only the netrefs count",
              "'até uma ordem de grandeza': up to an order of magnitude, local run (figure 14)",
              _function_12(LOOPBACK)),
        Claim(f"(rpcarena) The same function 12 claim across the {LINK} link, where each netref round trip costs "
              "the link's round trip", "not in the seed: its function 12 figures are local", _function_12(REMOTE)),
        Claim("Passing tuples (by value) made function 12 an order of magnitude faster, but RPyC stayed slower "
              "than gRPC", "tuples an order of magnitude faster than lists (figure 15), still slower than gRPC "
              "(figure 16)",
              Rule(pairs([("rpyc-nodelay", "rpyc-tuple-nodelay")], (DISTANCE,), About(10.0), STATISTIC)
                   + pairs([("rpyc-tuple-nodelay", "grpc-py")], (DISTANCE,), statistic=STATISTIC),
                   beside=(Beside(_on_distance("rpyc", "rpyc-tuple", LOOPBACK), SEEDS_OWN),
                           Beside(_on_distance("rpyc-tuple", "grpc-py", LOOPBACK), SEEDS_OWN)))),
        Claim("(rpcarena) As users get it, RPyC's function 12 also waits on delayed ACKs: rpyc.connect leaves "
              "TCP_NODELAY off, so each small write waits up to 40 ms; that is Nagle, not netrefs: TCP_NODELAY "
              "at least halves the call", "not in the seed",
              Rule(pairs([("rpyc", "rpyc-nodelay")], (DISTANCE,), AtLeast(2.0), "median"), seed_had_nagle=True,
                   beside=(Beside(_on_distance("rpyc-nodelay", "grpc-py", LOOPBACK, "median"),
                                  "the netrefs' own cost, with TCP_NODELAY on"),))),
    ),
)
