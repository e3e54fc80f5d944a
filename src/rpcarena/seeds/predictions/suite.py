"""predictions: gRPC vs REST in Python, Go and Rust, each reading Redis (seed 001, Portuguese)."""

from __future__ import annotations

from rpcarena.suites.judges import faster, not_comparable, ranking
from rpcarena.suites.model import Claim, Part, Suite

SERVERS = ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")
WORKLOADS = ("predictions.*",)  # the arena starts and seeds a Redis for these

SUITE = Suite(
    name="predictions", seed="001 predictions (gRPC vs REST, Redis-backed)",
    summary="GetPredictions from Redis: gRPC Python/Go vs REST FastAPI/warp; 1,000 sequential calls, then "
            "20 x 1,000 over 100 clients",
    parts=(  # the seed's client was Python for every server
        Part("1,000 sequential requests", SERVERS, WORKLOADS, calls=1000, quick_calls=300, client_drivers=("py",)),
        Part("20 batches of 1,000 requests over 100 client threads (each batch a trial, timed whole)", SERVERS,
             WORKLOADS, calls=1000, quick_calls=1000, clients=(100,), quick_clients=(100,), repeat=20,
             client_drivers=("py",)),
    ),
    claims=(
        Claim("Only gRPC answered under 30 ms (sequential requests over a network)",
              "gRPC under 30 ms; REST above",
              not_comparable("the seed measured across a network; this suite runs on one host",
                             faster("grpc-py", "rest-fastapi", WORKLOADS, statistic="p99"))),
        Claim("In batches, Go gRPC was best, then Python gRPC, then the two REST servers",
              "batch times: grpc-go < grpc-py < rest-fastapi, rest-warp",
              ranking((("grpc-go",), ("grpc-py",), ("rest-fastapi", "rest-warp")), WORKLOADS)),
    ),
)
