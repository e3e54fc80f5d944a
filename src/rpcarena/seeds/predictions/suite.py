"""predictions: gRPC vs REST in Python, Go and Rust, each reading Redis (seed 001, Portuguese).

Not comparable here: the seed's absolute 30 ms line, drawn on a real Wi-Fi network (an absolute
number says something only on the network it was drawn on; the shares are shown). The seed's
client was a Python notebook that opened a new connection per REST request (as `go-newconn`'s own
description says of it), so the batches are judged with REST driven by `py-newconn`, the
keep-alive REST shown beside. Confound left in the batches: 100 Python client threads (in several
driver processes) share 2 CPUs with the servers, Redis and the delay line, so a cell whose client
is saturated cannot judge the order (`Evidence.invalid`: client-bound) and says so.
"""

from __future__ import annotations

from rpcarena.suites.evidence import driven
from rpcarena.suites.model import Claim, Part, Suite
from rpcarena.suites.rules import Beside, Rule, ShareRule, ordering, pairs
from rpcarena.suites.setting import LOOPBACK, Setting

SERVERS = ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")
REST = ("rest-fastapi", "rest-warp")
WORKLOAD = "predictions.get"  # the arena starts and seeds a Redis for it
LINK = "wifi"  # the seed's network run: a Wi-Fi notebook to a desktop (docs/network.md)
WIFI = Setting(LINK)
LIMIT_MS = 30.0
BATCH = 100  # client threads of a batch
NEW_CONNECTION = tuple(driven(r, "py-newconn") for r in REST)  # a TCP connection per request, as the seed's client
KEEP_ALIVE = tuple(driven(r, "py") for r in REST)
ABSOLUTE_LINE = ("an absolute line from the seed's real Wi-Fi (its round trips, its jitter) says nothing about "
                 f"an emulated {LINK} link of other round trips; the shares under it are shown, not judged")


def batches_in_order(where: Setting) -> Rule:
    """grpc-go < grpc-py < the two REST servers (new connection per request), batch time at 100 clients;
    the keep-alive REST beside, in a full run only (not judged, and a third of --quick's minutes)."""
    return Rule(ordering((("grpc-go",), ("grpc-py",), NEW_CONNECTION), (WORKLOAD,), where=where, clients=BATCH),
                beside=tuple(Beside(c, "keep-alive REST (one warm connection per client thread), not the seed's")
                             for c in pairs([(r, "grpc-py") for r in KEEP_ALIVE], (WORKLOAD,), where=where,
                                            clients=(BATCH,), quick_clients=())))


def _batches(title: str, servers: tuple[str, ...], client: str, link: str | None = None) -> Part:
    return Part(title, servers, (WORKLOAD,), calls=1000, quick_calls=1000, clients=(BATCH,), quick_clients=(BATCH,),
                repeat=20, client_drivers=(client,), link=link)


SUITE = Suite(
    name="predictions", seed="001 predictions (gRPC vs REST, Redis-backed)",
    summary="GetPredictions from Redis: gRPC Python/Go vs REST FastAPI/warp; 1,000 sequential calls, then "
            "20 x 1,000 over 100 clients (REST with a new connection per request, as the seed's, and kept alive)",
    # --quick, whole, on 2 idle CPUs: 5.5 measured 2026-11-29 (36 cells, 24 of them batches of 16 driver
    # processes; 9.6 with the keep-alive REST beside, 48 cells)
    quick_minutes=5.5,
    parts=(  # the seed's client was Python for every server
        Part("1,000 sequential requests", SERVERS, (WORKLOAD,), calls=1000, quick_calls=300, client_drivers=("py",)),
        _batches("20 batches of 1,000 requests over 100 client threads (each batch a trial, timed whole)", SERVERS,
                 "py"),
        _batches("the same batches, REST with a new connection per request (as the seed's client)", REST,
                 "py-newconn"),
        Part(f"1,000 sequential requests across a {LINK} link (the seed's network run)", SERVERS, (WORKLOAD,),
             calls=1000, quick_calls=200, client_drivers=("py",), link=LINK),
        _batches(f"20 batches of 1,000 requests over 100 client threads across a {LINK} link", SERVERS, "py", LINK),
        _batches(f"the same batches across a {LINK} link, REST with a new connection per request", REST,
                 "py-newconn", LINK),
    ),
    claims=(  # every run of the seed went from a Wi-Fi notebook to a wired desktop ('Eu fiz esses testes ...')
        Claim(f"Only gRPC answered under 30 ms, many calls under 10 ms (sequential requests over Wi-Fi; here a "
              f"{LINK} link)", "histogram: only gRPC under 30 ms; grpc-go more often over 30 ms than grpc-py",
              ShareRule(SERVERS, WORKLOAD, WIFI, LIMIT_MS, ABSOLUTE_LINE)),
        Claim(f"In batches (over Wi-Fi; here a {LINK} link), Go gRPC was best, then Python gRPC, then the two "
              "REST servers (a new connection per request, as the seed's client)",
              "batch times: grpc-go < grpc-py < rest-fastapi, rest-warp (similar)", batches_in_order(WIFI)),
        Claim("(rpcarena) The same order in batches on one host, where only the servers and the protocols differ",
              "not in the seed: its batches crossed the Wi-Fi", batches_in_order(LOOPBACK)),
    ),
)
