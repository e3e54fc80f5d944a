"""A pooled call's latency includes its wait for a free connection (`--connections M`), in the
Python, Go, Rust and Java HTTP clients alike (issue 38: the Rust client left it out, its mean
74 µs where 8 clients at 26,339 calls/s spend ~304 µs a call; Java's did too).

Little's law is the check, a shape and not a duration: in a closed loop each of N clients always
has one call under way, waiting or on the wire, so the mean latency is N / calls per second, give
or take the client's own time between calls. Were the wait left out, 8 clients sharing 2
connections would read about 2 / calls per second instead: a quarter."""

from __future__ import annotations

import os

import pytest

from rpcarena import contenders
from rpcarena.contenders import native
from rpcarena.results import load
from tests.conftest import ROOT, run_cli

CLIENTS, CONNECTIONS, CALLS = 8, 2, 800
# generous: another process's busy loop may take a client's CPU between its calls (outside any call)
LITTLE = (0.6, 1.4)
ORDERS = ("--proto", str(ROOT / "examples/orders/orders.proto"), "--method", "orders.Orders/Place",
          "--data-file", str(ROOT / "examples/orders/requests.jsonl"))


def _usable(client: str) -> bool:
    worker = native.workers().get(client)
    return worker is not None and worker.unavailable() is None


@pytest.mark.parametrize("client", ["py", "go", "rust", "java"])
def test_the_mean_latency_of_pooled_calls_follows_littles_law(tmp_path, client):
    """A handler that waits 5 ms (no CPU) makes the call, and the wait for one of 2 connections, far
    longer than a client's own time between calls, even a Python client's under load."""
    server = contenders.get("rest-go")
    for reason in (server.unavailable(), None if client == "py" or _usable(client) else f"no {client} worker"):
        if reason and os.environ.get("CI") != "true":
            pytest.skip(reason)
    out = tmp_path / "r.json"
    done = run_cli("run", *ORDERS, "--server-wait", "5ms", "--contender", "rest-go", "--client", client,
                   "--clients", str(CLIENTS), "--connections", str(CONNECTIONS), "-n", str(CALLS), "--warmup", "0.3s",
                   "--out", str(out), timeout=3600)
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    assert cell.calls == CALLS and cell.conn_wait.get("count") == CALLS  # a pool: each call asked for a connection
    in_flight = cell.latency["mean_us"] / 1e6 * cell.throughput_per_s  # Little's law: L = lambda W
    assert LITTLE[0] * CLIENTS <= in_flight <= LITTLE[1] * CLIENTS, (in_flight, cell.latency["mean_us"],
                                                                      cell.throughput_per_s)
