"""multiplexing: rpcarena's own study (not a published seed) of N calls in flight over one connection
against one connection each (issue 25, `--connections`).

gRPC carries many calls at once on one HTTP/2 connection; an HTTP/1.1 pool of one connection
carries one at a time, so its calls queue. On loopback sharing should cost gRPC little; over a
lossy link (rtt=20ms, loss=1%) a lost segment holds back every call behind it on that one TCP
connection (head-of-line blocking), where separate connections stall alone. Each question is
answered from the trials' ratio, shared over own, at 8 and 64 calls in flight (1 is the same
design both ways); the server's memory is compared at 64. HTTP/3 (rest-h3-go: QUIC streams over
UDP, each delivered apart) has no such blocking: over the same lossy link and one shared
connection, its p50 and p99 are set against gRPC's over HTTP/2 (the encodings differ too, JSON
against protobuf, but a 1 KB string costs each about the same bytes).
"""

from __future__ import annotations

from rpcarena.seeds.multiplexing.workloads import PREFIX
from rpcarena.suites.evidence import RSS
from rpcarena.suites.model import Claim, Part, Suite
from rpcarena.suites.operands import Comparison, Measure
from rpcarena.suites.rules import Rule
from rpcarena.suites.setting import Setting

WORKLOAD = f"{PREFIX}.str1024"
LOSSY = "rtt=20ms,loss=1%"
IN_FLIGHT = (8, 64)
SHARED, OWN = "1 connection", "one connection each"


def shared_slower(contender: str, statistic: str, link: str | None = None) -> Rule:
    """Whether calls sharing one connection take longer (`statistic`) than calls on one connection each, at
    8 and 64 calls in flight: shared/own above 1 over trials, both levels one family."""
    return Rule(tuple(Comparison(Measure(contender, WORKLOAD, n, Setting(link, 1), statistic),
                                 Measure(contender, WORKLOAD, n, Setting(link), statistic)) for n in IN_FLIGHT))


def less_memory(contender: str, clients: int = 64) -> Rule:
    """Whether the server's peak RSS is lower with one shared connection than with one per client: own/shared
    above 1 over trials."""
    return Rule((Comparison(Measure(contender, WORKLOAD, clients, Setting(), RSS),
                            Measure(contender, WORKLOAD, clients, Setting(connections=1), RSS)),))


def h3_faster(statistic: str) -> Rule:
    """Whether HTTP/3 (rest-h3-go) beats gRPC over HTTP/2 (grpc-go) on `statistic`, their calls sharing one
    connection over the lossy link: grpc-go/rest-h3-go above 1 over trials, at 8 and 64 calls in flight,
    both levels one family."""
    where = Setting(LOSSY, 1)
    return Rule(tuple(Comparison(Measure("grpc-go", WORKLOAD, n, where, statistic),
                                 Measure("rest-h3-go", WORKLOAD, n, where, statistic)) for n in IN_FLIGHT))


def _part(title: str, contenders: tuple[str, ...], clients: tuple[int, ...], link: str | None = None,
          connections: int | None = None) -> Part:
    return Part(title, contenders, (WORKLOAD,), calls=6400, quick_calls=3200, clients=clients, link=link,
                connections=connections)


def _parts() -> tuple[Part, ...]:
    """Each design on loopback (grpc-go and rest-go) and over the lossy link (grpc-go: HTTP/1.1 over one
    connection is a queue whatever the link, and at 20 ms a call it would take minutes)."""
    local = ("grpc-go", "rest-go")
    return (_part(f"{OWN}, loopback", local, (1, 8, 64)),
            _part(f"{SHARED} shared, loopback", local, (1, 8, 64), connections=1),
            _part(f"{OWN}, {LOSSY}", ("grpc-go",), IN_FLIGHT, LOSSY),
            _part(f"{SHARED} shared, {LOSSY}", ("grpc-go", "rest-h3-go"), IN_FLIGHT, LOSSY, connections=1))


SUITE = Suite(
    name="multiplexing", seed="rpcarena's own study (issue 25): calls in flight over one connection or one each",
    summary=f"1, 8 and 64 calls in flight over 1 connection against one connection each, grpc-go and rest-go on "
            f"loopback, grpc-go over {LOSSY}; HTTP/3 (rest-h3-go) against gRPC over that link, 1 connection, "
            f"on {WORKLOAD}",
    # --quick, whole, on 2 idle CPUs: 2.5 measured 2026-11-29 (42 cells, `suite multiplexing --quick`)
    quick_minutes=2.5,
    parts=_parts(),
    claims=(
        Claim("On loopback, do gRPC calls take longer when 8 or 64 share one connection than on one connection "
              "each?", "rpcarena: a channel's single TCP connection and flow-control window against many",
              shared_slower("grpc-go", "median"), question=True),
        Claim("On loopback, does an HTTP/1.1 pool of one connection make calls queue (8 or 64 callers)?",
              "rpcarena: HTTP/1.1 carries one call at a time on a connection", shared_slower("rest-go", "median"),
              question=True),
        Claim(f"Over {LOSSY}, is gRPC's p99 worse over one shared connection (head-of-line blocking: a lost "
              "segment holds back every call on it)?", "rpcarena: TCP delivers in order, one connection stalls "
              "whole", shared_slower("grpc-go", "p99", LOSSY), question=True),
        Claim("Does one shared gRPC connection cost the server less memory than 64 connections?",
              "rpcarena: each connection has its buffers and HTTP/2 state", less_memory("grpc-go"), question=True),
        Claim(f"Over {LOSSY}, with 8 or 64 calls sharing one connection, is HTTP/3's median lower than gRPC's "
              "over HTTP/2?", "rpcarena (issue 45): QUIC delivers each stream apart, TCP the whole connection "
              "in order", h3_faster("median"), question=True),
        Claim(f"Over {LOSSY}, with 8 or 64 calls sharing one connection, is HTTP/3's p99 lower than gRPC's over "
              "HTTP/2 (no head-of-line blocking)?", "rpcarena (issue 45): a lost packet holds back only the "
              "QUIC streams whose bytes it carried", h3_faster("p99"), question=True),
    ),
)
