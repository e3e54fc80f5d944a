"""The cs6650 open question: words on one stream (gRPC bidi, WebSocket) against one call per word."""

from __future__ import annotations

from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans


def test_python_streams_are_verified_per_message(tmp_path):
    config = RunConfig(contenders=["grpc-py", "rest-fastapi", "tcp-raw"], workloads=["cs6650.stream"],
                       calls=200, warmup_s=0, out=tmp_path / "r.json")
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    for contender in ("grpc-py", "rest-fastapi", "tcp-raw"):
        cell = cells[contender]
        assert cell.status == "ok", cell.reason
        assert cell.calls == 200 and cell.errors == {}


def test_a_stream_sends_no_per_call_headers(tmp_path):
    """By count, not time: a WebSocket message carries far fewer bytes than an HTTP request."""
    config = RunConfig(contenders=["rest-fastapi"], workloads=["cs6650.word", "cs6650.stream"], calls=200,
                       warmup_s=0, out=tmp_path / "r.json")
    cells = {c.workload: c for c in Arena(config, plans(config)).run().cells}
    if cells["cs6650.word"].payload_bytes_per_call is None:
        return
    assert cells["cs6650.stream"].payload_bytes_per_call * 3 < cells["cs6650.word"].payload_bytes_per_call


def test_http_clients_without_streams_are_unsupported_not_failed(tmp_path):
    config = RunConfig(contenders=["rpyc-tuple"], workloads=["cs6650.stream"], calls=10, warmup_s=0,
                       out=tmp_path / "r.json")
    (cell,) = Arena(config, plans(config)).run().cells
    assert cell.status == "unsupported" and "stream" in cell.reason
