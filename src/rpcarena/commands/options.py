"""Options shared by the commands that measure (`run`, `target`, `suite`): one definition each."""

from __future__ import annotations

from typing import Any

DEFAULT_WARMUP = "1s"


def add_measure_options(p: Any) -> None:
    """How cells are measured: shared by `run`, `target` and any command that measures."""
    p.add_argument("--clients", default="1", help="concurrency levels, e.g. 1,8,32 (default 1)")
    p.add_argument("--calls", type=int, help="measured calls per cell (default 1000 unless --duration)")
    p.add_argument("--duration", help="measure for a time instead of a count, e.g. 10s")
    p.add_argument("--warmup", help=f"warm-up per cell, discarded: a duration (default {DEFAULT_WARMUP})")
    p.add_argument("--repeat", type=int, default=1, help="independent trials per cell, each a fresh server")
    p.add_argument("--pin", default="split", help="CPU placement: split (default), same or none")
    p.add_argument("--timeout", default="5s", help="per-call timeout; slower calls count as errors")
    p.add_argument("--cell-timeout", default="600s", help="give up on a cell after this long")
    p.add_argument("--samples", type=int, default=10_000, help="raw latencies kept per cell for plots")
    p.add_argument("--rate", type=float, help="open loop: calls per second over all clients")
    p.add_argument("--arrival", default="constant", help="open-loop arrivals: constant or poisson")
    p.add_argument("--find-max", action="store_true", help="search the highest rate meeting --slo")
    p.add_argument("--slo", help="latency objective for --find-max, e.g. 'p99<5ms' or 'p99.9<=20ms,mean<1ms'")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed cell")
    p.add_argument("--report", metavar="PATH", help="also write the HTML report here")


def add_cluster_options(p: Any) -> None:
    """Where cells run on a Dask cluster (docs/cluster.md)."""
    p.add_argument("--cluster", metavar="SPEC",
                   help="servers and clients on a Dask cluster's nodes: a scheduler (tcp://HOST:8786), "
                        "ssh:HOST_A,HOST_B, local:N, or netns:rtt=10ms[,clients=N] (an emulated link here)")
    p.add_argument("--server-node", metavar="NODE",
                   help="the node that serves: a worker's address, name, host or resource:NAME (default: the worker "
                        "named or with the resource 'server', else the first)")
    p.add_argument("--client-nodes", metavar="NODES",
                   help="the nodes that drive, comma-separated like --server-node (default: every other node)")
