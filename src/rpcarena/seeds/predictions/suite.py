"""predictions: gRPC vs REST in Python, Go and Rust, each reading Redis (seed 001, Portuguese)."""

from __future__ import annotations

from collections.abc import Callable

from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import on_network, ranking
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Claim, Judgement, Part, Suite

SERVERS = ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")
WORKLOADS = ("predictions.*",)  # the arena starts and seeds a Redis for these
GRPC, REST = ("grpc-py", "grpc-go"), ("rest-fastapi", "rest-warp")
LINK = "wifi"  # the seed's network run: a Wi-Fi notebook to a desktop (docs/network.md)
LIMIT_MS = 30.0


def only_grpc_under(limit_ms: float, statistic: str = "p99") -> Callable[[Evidence], Judgement]:
    """Every gRPC server's `statistic` significantly under `limit_ms`, every REST server's over it."""
    def judge(ev: Evidence) -> Judgement:
        workloads = ev.resolve(WORKLOADS)
        gone = ev.absent(list(GRPC + REST), list(WORKLOADS))
        if gone or not workloads:
            return Judgement("-", NOT_COMPARABLE, gone or "nothing measured")
        ci = {s: g.interval(statistic) for s in GRPC + REST if (g := ev.get(s, workloads[0]))}
        measured = "; ".join(f"{s} {statistic} {c.estimate / 1e3:.2f} ms [{c.low / 1e3:.2f}, {c.high / 1e3:.2f}]"
                             for s, c in ci.items())
        under = [s for s in GRPC if s in ci and ci[s].high < limit_ms * 1e3]
        over = [s for s in REST if s in ci and ci[s].low > limit_ms * 1e3]
        if len(under) == len(GRPC) and len(over) == len(REST):
            return Judgement(measured, HOLDS, f"gRPC under {limit_ms:g} ms, REST over it")
        fast_rest = [s for s in REST if s not in over]
        return Judgement(measured, FAILS, f"{statistic} under {limit_ms:g} ms also for REST: {', '.join(fast_rest)}"
                         if fast_rest else f"gRPC not under {limit_ms:g} ms: {', '.join(set(GRPC) - set(under))}")
    return judge


SUITE = Suite(
    name="predictions", seed="001 predictions (gRPC vs REST, Redis-backed)",
    summary="GetPredictions from Redis: gRPC Python/Go vs REST FastAPI/warp; 1,000 sequential calls, then "
            "20 x 1,000 over 100 clients",
    parts=(  # the seed's client was Python for every server
        Part("1,000 sequential requests", SERVERS, WORKLOADS, calls=1000, quick_calls=300, client_drivers=("py",)),
        Part("20 batches of 1,000 requests over 100 client threads (each batch a trial, timed whole)", SERVERS,
             WORKLOADS, calls=1000, quick_calls=1000, clients=(100,), quick_clients=(100,), repeat=20,
             client_drivers=("py",)),
        Part(f"1,000 sequential requests across a {LINK} link (the seed's network run)", SERVERS, WORKLOADS,
             calls=1000, quick_calls=200, client_drivers=("py",), link=LINK),
        Part(f"20 batches of 1,000 requests over 100 client threads across a {LINK} link", SERVERS, WORKLOADS,
             calls=1000, quick_calls=1000, clients=(100,), quick_clients=(100,), repeat=20, client_drivers=("py",),
             link=LINK),
    ),
    claims=(
        Claim(f"Only gRPC answered under 30 ms (sequential requests over a network; here a {LINK} link)",
              "gRPC under 30 ms; REST above", on_network(only_grpc_under(LIMIT_MS))),
        Claim("In batches, Go gRPC was best, then Python gRPC, then the two REST servers",
              "batch times: grpc-go < grpc-py < rest-fastapi, rest-warp",
              ranking((("grpc-go",), ("grpc-py",), ("rest-fastapi", "rest-warp")), WORKLOADS)),
        Claim(f"The same order in batches across a {LINK} link", "not in the seed: its batches ran on one host",
              on_network(ranking((("grpc-go",), ("grpc-py",), ("rest-fastapi", "rest-warp")), WORKLOADS))),
    ),
)
