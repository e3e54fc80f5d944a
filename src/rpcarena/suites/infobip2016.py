"""infobip2016: HTTP/JSON vs HTTP/Java serialization vs MML typed JSON, Java services (seed 004, Spanish).

Throughput of a closed loop is clients / mean latency, so "faster" is judged on the mean latency at
each concurrency level (1, 32, 64, 128 in the seed).
"""

from __future__ import annotations

from rpcarena.suites.evidence import Evidence, ratio_text
from rpcarena.suites.judges import faster, not_comparable
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Claim, Judgement, Part, Suite

JSON, JAVASER, MML = "rest-jackson", "http-javaser", "typed-json"
ITEMS = ("infobip.items0", "infobip.items10", "infobip.items100")


def http_catches_up(ev: Evidence) -> Judgement:
    """The gap MML over HTTP/JSON at 100 items is smaller than at 10 items, at every level."""
    gone = ev.absent([MML, JSON], ["infobip.items10", "infobip.items100"])
    if gone:
        return Judgement("-", NOT_COMPARABLE, gone)
    rows, shrinks = [], []
    for n in ev.levels(MML, "infobip.items100"):
        small, large = (ev.ratio(JSON, MML, w, "mean", n) for w in ("infobip.items10", "infobip.items100"))
        if small and large:
            rows.append(f"x{n}: JSON/MML mean {ratio_text(small)} at 10, {ratio_text(large)} at 100")
            shrinks.append(large.high < small.low)
    if not rows:
        return Judgement("-", NOT_COMPARABLE, "no level measured both sizes")
    verdict = HOLDS if all(shrinks) else FAILS
    return Judgement("; ".join(rows), verdict, f"gap significantly smaller at 100 items at {sum(shrinks)} of "
                                                f"{len(shrinks)} levels")


NETWORK = "the seed's second setting is a real network with HAProxy; this suite runs on localhost"

SUITE = Suite(
    name="infobip2016", seed="004 infobip2016 (HTTP/JSON vs Java serialization vs MML)",
    summary="echo a list of 0/10/100 small objects with 1/32/64/128 clients: Jackson, Java serialization, "
            "typed JSON (MML)",
    parts=(Part("echo N items, closed loop", (JSON, JAVASER, MML), ITEMS, calls=5000, quick_calls=300,
                clients=(1, 32, 64, 128), quick_clients=(1, 32), warmup_s=2.0, quick_warmup_s=0.3),),
    claims=(
        Claim("Localhost: MML beats HTTP/JSON for small and medium payloads (0 and 10 items)",
              "MML ahead at 0 and 10 items", faster(MML, JSON, ITEMS[:2], statistic="mean")),
        Claim("Localhost: HTTP/JSON catches up with MML at 100 items", "gap closes at 100", http_catches_up),
        Claim("Java serialization is slower than JSON everywhere", "slower in every case",
              faster(JSON, JAVASER, ITEMS, statistic="mean")),
        Claim("Network (HAProxy): MML's lead shrinks for small payloads", "lead shrinks",
              not_comparable(NETWORK, faster(MML, JSON, ITEMS[:1], statistic="mean"))),
        Claim("Network: JSON over HTTP beats MML at large payloads (type tags inflate the bytes)",
              "JSON ahead at 100 items", not_comparable(NETWORK, faster(JSON, MML, ITEMS[2:], statistic="mean"))),
    ),
)
