"""predictions: gRPC vs REST in Python, Go and Rust, each reading Redis (seed 001, Portuguese)."""

from __future__ import annotations

from collections.abc import Callable

from rpcarena.analysis.stats import MIN_TRIALS
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import on_network, ranking
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, UNDECIDED, Claim, Judgement, Part, Suite

SERVERS = ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")
WORKLOADS = ("predictions.*",)  # the arena starts and seeds a Redis for these
GRPC, REST = ("grpc-py", "grpc-go"), ("rest-fastapi", "rest-warp")
LINK = "wifi"  # the seed's network run: a Wi-Fi notebook to a desktop (docs/network.md)
LIMIT_MS = 30.0


def only_grpc_under(limit_ms: float, statistic: str = "p99") -> Callable[[Evidence], Judgement]:
    """Every gRPC server under `limit_ms` and every REST server over it, in every trial."""
    rule = (f"each server's {statistic} in each of its trials ({MIN_TRIALS} or more) against the seed's "
            f"{limit_ms:g} ms line: holds when every gRPC trial is under it and every REST trial over it")

    def judge(ev: Evidence) -> Judgement:
        workloads = ev.resolve(WORKLOADS)
        gone = ev.absent(list(GRPC + REST), list(WORKLOADS))
        if gone or not workloads:
            return Judgement((), NOT_COMPARABLE, gone or "nothing measured", rule)
        trials = {s: [v / 1e3 for v in g.per_trial(statistic)] for s in GRPC + REST
                  if (g := ev.get(s, workloads[0]))}
        measured = tuple(f"{s} {statistic} per trial: {', '.join(f'{v:.2f}' for v in ms)} ms"
                         for s, ms in trials.items())
        if min(len(ms) for ms in trials.values()) < MIN_TRIALS:
            return Judgement(measured, UNDECIDED, "too few trials to say", rule)
        wrong = [s for s in GRPC if max(trials[s]) >= limit_ms] + [s for s in REST if min(trials[s]) <= limit_ms]
        if not wrong:
            return Judgement(measured, HOLDS, f"gRPC under {limit_ms:g} ms in every trial, REST over it", rule)
        fast_rest = [s for s in REST if max(trials[s]) < limit_ms]
        slow_grpc = [s for s in GRPC if min(trials[s]) > limit_ms]
        if fast_rest or slow_grpc:
            return Judgement(measured, FAILS, f"under {limit_ms:g} ms in every trial too: {', '.join(fast_rest)}"
                             if fast_rest else f"over {limit_ms:g} ms in every trial: {', '.join(slow_grpc)}", rule)
        return Judgement(measured, UNDECIDED, f"trials on both sides of {limit_ms:g} ms: {', '.join(wrong)}", rule)
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
