"""--connections M: N clients share M connections, counted where it shows, on the real server's sockets.

Each cell's `server_connections` is read from the server's own established sockets once the
clients are warm (network.sockets), so it counts what the server accepted, not what a driver says.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec
from rpcarena.errors import UsageError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.orchestration.phase import split


def _run(tmp_path, contender_ids, clients, connections, calls=150):
    for cid in contender_ids:
        reason = contenders.get(cid).unavailable()
        if reason and os.environ.get("CI") != "true":
            pytest.skip(reason)
    config = RunConfig(contenders=contender_ids, workloads=["usp.int32"], clients=[clients], calls=calls,
                       warmup_s=0.3, connections=connections, out=tmp_path / "r.json")
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    assert all(c.status == "ok" and c.calls == calls for c in cells.values()), [c.reason for c in cells.values()]
    return cells


def test_python_drivers_open_exactly_the_connections_asked(tmp_path):
    cells = _run(tmp_path, ["grpc-py", "rest-fastapi", "thrift-binary"], clients=6, connections=2)
    for cell in cells.values():
        assert (cell.server_connections, cell.connections) == (2, 2), cell.contender
        assert 1 <= cell.inflight_max <= 6 and 1 <= cell.inflight_mean <= cell.inflight_max
    # a gRPC channel multiplexes: no call waits for it; HTTP/1.1 and Thrift are pools, one call at a time each
    assert cells["grpc-py"].conn_wait_histogram is None
    for pooled in ("rest-fastapi", "thrift-binary"):
        assert cells[pooled].inflight_max <= 2 and cells[pooled].conn_wait.get("count") == 150, pooled


def test_go_drivers_open_exactly_the_connections_asked(tmp_path):
    cells = _run(tmp_path, ["grpc-go", "rest-go"], clients=6, connections=2)
    for cell in cells.values():
        assert (cell.server_connections, cell.connections, cell.client_processes) == (2, 2, 1), cell.contender
    assert cells["grpc-go"].conn_wait_histogram is None
    assert cells["rest-go"].inflight_max <= 2 and cells["rest-go"].conn_wait.get("count") == 150


def test_grpc_over_one_connection_has_most_clients_in_flight(tmp_path):
    cells = _run(tmp_path, ["grpc-go"], clients=16, connections=1, calls=800)
    cell = cells["grpc-go"]
    assert (cell.server_connections, cell.connections) == (1, 1)
    assert 12 <= cell.inflight_max <= 16, cell.inflight_max


def test_without_connections_each_client_has_its_own(tmp_path):
    cells = _run(tmp_path, ["grpc-go"], clients=3, connections=None, calls=30)
    cell = cells["grpc-go"]
    assert (cell.server_connections, cell.connections, cell.inflight_max) == (3, None, None)


def test_connections_split_over_driver_processes_add_up_to_m():
    spec = DriveSpec(contender="grpc-py", target="127.0.0.1:1", method="EchoInt32", requests=[{"value": 1}],
                     clients=64, calls=640)
    assert [s.connections for s in split(spec, 4)] == [None] * 4
    assert [(s.clients, s.connections) for s in split(spec.but(connections=1), 4)] == [(64, 1)]
    assert [(s.clients, s.connections) for s in split(spec.but(connections=6), 4)] == [(16, 2), (16, 2), (16, 1),
                                                                                      (16, 1)]


@pytest.mark.parametrize("connections", [0, 9])
def test_connections_outside_one_to_clients_is_a_usage_error(connections):
    with pytest.raises(UsageError, match="--connections"):
        RunConfig(contenders=["grpc-py"], workloads=["usp.int32"], clients=[8, 32], connections=connections)


def test_a_pool_whose_wait_is_most_of_a_call_is_said():
    import rpcarena
    from rpcarena.analysis import stability
    from tests.conftest import FIXTURE

    cell = rpcarena.load(FIXTURE).cells[0]
    queued = dataclasses.replace(cell, connections=1, inflight_max=1, conn_wait_histogram=cell.latency_histogram)
    said = stability.queued_for_connection(queued, 2)
    assert said is not None and "queued for 1 connection" in said.text()
    assert stability.queued_for_connection(cell, 2) is None
