"""predictions: gRPC vs REST in Python, Go and Rust, each reading Redis (seed 001, Portuguese).

Not comparable here: the seed's absolute 30 ms line, drawn on a real Wi-Fi network. Confound
left in the batches: 100 Python client threads (in several driver processes) share 2 CPUs
with the servers, Redis and the delay line, so a cell whose client is saturated cannot judge
the order (`Evidence.invalid`: client-bound) and says so.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rpcarena.analysis.stats import CANNOT_TELL, MIN_TRIALS
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import (
    FEW_TRIALS,
    NOT_SIGNIFICANT,
    OPPOSITE,
    SHOWN,
    not_comparable,
    on_network,
    ranking,
    tally,
)
from rpcarena.suites.model import NOT_COMPARABLE, Claim, Judgement, Measured, Part, Suite

SERVERS = ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")
WORKLOADS = ("predictions.*",)  # the arena starts and seeds a Redis for these
GRPC, REST = ("grpc-py", "grpc-go"), ("rest-fastapi", "rest-warp")
LINK = "wifi"  # the seed's network run: a Wi-Fi notebook to a desktop (docs/network.md)
LIMIT_MS = 30.0


def only_grpc_under(limit_ms: float) -> Callable[[Evidence], Judgement]:
    """The seed's histogram: only gRPC answered under `limit_ms` ('apenas requisições gRPC retornam
    respostas em menos de 30 milissegundos, com muitas delas ... em menos de 10'). Per server and trial,
    the share of calls under the line: a gRPC server shows it when most of its calls are under in every
    trial, a REST server when almost none are (under 1%)."""
    rule = (f"share of each server's calls under the seed's {limit_ms:g} ms line, in each of its trials "
            f"({MIN_TRIALS} or more): holds when every gRPC trial has at least {MOST:.0%} of its calls under "
            f"it and every REST trial fewer than {FEW:.0%}")

    def judge(ev: Evidence) -> Judgement:
        workloads = ev.resolve(WORKLOADS)
        gone = ev.absent(list(GRPC + REST), list(WORKLOADS))
        if gone or not workloads:
            return Judgement((), NOT_COMPARABLE, gone or "nothing measured", rule)
        shares = {s: [float(np.mean(t < limit_ms * 1e3)) for t in g.trials] for s in GRPC + REST
                  if (g := ev.get(s, workloads[0]))}
        said = {s: _under(s in GRPC, share) for s, share in shares.items()}
        measured = tuple(Measured(s, f"calls under {limit_ms:g} ms per trial",
                                  value=", ".join(f"{v:.0%}" for v in share), significance=SAID[said[s]])
                         for s, share in shares.items())
        found = tally(said, "servers", shown_as="as claimed",
                      opposite_as="the other way round")
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


MOST, FEW = 0.5, 0.01
SAID = {SHOWN: "as claimed", OPPOSITE: "the other way round", NOT_SIGNIFICANT: "trials on both sides",
        FEW_TRIALS: CANNOT_TELL}


def _under(grpc: bool, shares: list[float]) -> str:
    """A gRPC server shows the claim with most calls under the line in every trial; a REST server with
    almost none; each the opposite when every trial is on the other side."""
    if len(shares) < MIN_TRIALS:
        return FEW_TRIALS
    mostly, rarely = min(shares) >= MOST, max(shares) < FEW
    if grpc:
        return SHOWN if mostly else OPPOSITE if max(shares) < MOST else NOT_SIGNIFICANT
    return SHOWN if rarely else OPPOSITE if min(shares) >= MOST else NOT_SIGNIFICANT


ORDER = (("grpc-go",), ("grpc-py",), ("rest-fastapi", "rest-warp"))
ABSOLUTE_LINE = ("an absolute line from the seed's real Wi-Fi (its round trips, its jitter) says nothing about "
                 f"an emulated {LINK} link of other round trips; the shares under it are shown, not judged")


SUITE = Suite(
    name="predictions", seed="001 predictions (gRPC vs REST, Redis-backed)",
    summary="GetPredictions from Redis: gRPC Python/Go vs REST FastAPI/warp; 1,000 sequential calls, then "
            "20 x 1,000 over 100 clients",
    quick_minutes=10.1,  # --quick, whole, on 2 idle CPUs (measured 2026-11-26)
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
    claims=(  # every run of the seed went from a Wi-Fi notebook to a wired desktop ('Eu fiz esses testes ...')
        Claim(f"Only gRPC answered under 30 ms, many calls under 10 ms (sequential requests over Wi-Fi; here a "
              f"{LINK} link)", "histogram: only gRPC under 30 ms; grpc-go more often over 30 ms than grpc-py",
              not_comparable(ABSOLUTE_LINE, on_network(only_grpc_under(LIMIT_MS)))),
        Claim(f"In batches (over Wi-Fi; here a {LINK} link), Go gRPC was best, then Python gRPC, then the two "
              "REST servers", "batch times: grpc-go < grpc-py < rest-fastapi, rest-warp (similar)",
              on_network(ranking(ORDER, WORKLOADS))),
        Claim("(rpcarena) The same order in batches on one host, where only the servers and the protocols differ",
              "not in the seed: its batches crossed the Wi-Fi", ranking(ORDER, WORKLOADS)),
    ),
)
