"""grpc-cpp (gRPC C++ on the callback API, workers/cpp): the golden vectors answered right, runs
driven by the Python, Go and Node gRPC clients with every reply verified, and the hostile peers
its bounds are for (a message over 4 MiB, more streams than a connection may open, a count over
the cap, a connection that sends nothing).

Real servers on port 0, started as the orchestrator starts them; counts and outcomes are
asserted, never durations, and every wait is bounded.
"""

from __future__ import annotations

import json
import os
import socket
import struct

import hpack
import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.contenders import native
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.process import builds
from rpcarena.protocol import limits, schema
from tests.e2e.test_hostile_peers import WAIT_S, _address, _answers, _grpc_oversized, _read_to_end

CPP = "grpc-cpp"
VECTORS = json.loads((schema.proto_dir() / "vectors" / "arena.json").read_text())["vectors"]
MAX_STREAMS = 1000  # workers/cpp/src/limits.h, kMaxConcurrentStreams


def _needs(*client_ids: str) -> None:
    """Skip (outside CI) where grpc-cpp, or a native client asked for, cannot build here."""
    reasons = [contenders.get(CPP).unavailable()]
    reasons += [native.client(c, "grpc").unavailable() for c in client_ids]  # type: ignore[union-attr]
    reason = next((r for r in reasons if r), None)
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


def test_a_missing_tool_or_library_is_named_with_the_apt_command(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    reason = builds.workers()["cpp"].unavailable()
    assert reason is not None
    assert "apt-get install protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev" in reason, reason
    assert "apt-get install g++" in reason and "apt-get install pkg-config" in reason, reason


def test_every_golden_vector_is_answered_as_the_reference_answers(start_server):
    _needs()
    server = start_server(CPP)
    for vector in VECTORS:
        client = contenders.python_client("grpc")(server.target, vector["method"], 30.0)
        try:
            got = client.call(client.prepare(vector["request"]))
            assert client.same(got, client.expect(vector["response"])), (vector["workload"], got)
        finally:
            client.close()


@pytest.mark.parametrize("client_id", ["py", "go", "node"])
def test_each_grpc_client_gets_every_reply_right(client_id, tmp_path):
    _needs(*([] if client_id == "py" else [client_id]))
    config = RunConfig(contenders=[CPP], workloads=["usp.distance", "hprpc.large1024", "cs6650.stream"],
                       client_drivers=[client_id], clients=[4], calls=200, warmup_s=0, warmup_max_s=0,
                       out=tmp_path / "r.json")
    cells = Arena(config, plans(config)).run().cells
    assert sorted(c.workload for c in cells) == ["cs6650.stream", "hprpc.large1024", "usp.distance"]
    for cell in cells:
        assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", client_id, 200, {}), \
            (cell.workload, cell.reason)


def test_a_message_over_4_mib_is_resource_exhausted_and_the_server_answers_on(start_server):
    _needs()
    server = start_server(CPP)
    assert _grpc_oversized(server.target) == "RESOURCE_EXHAUSTED"
    _answers(CPP, server.target)


def test_a_count_over_the_cap_is_invalid_argument_naming_it(start_server):
    import grpc

    _needs()
    server = start_server(CPP)
    request = schema.message_class(schema.methods()["GetRandNums"].request)(count=1_000_001, seed=1)
    with grpc.insecure_channel(server.target) as channel:
        call = channel.unary_unary(f"/{schema.SERVICE}/GetRandNums", request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=lambda b: b)
        with pytest.raises(grpc.RpcError) as refused:
            call(request, timeout=30)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == "GetRandNums count 1000001 is over the cap of 1000000: ask for fewer"
    _answers(CPP, server.target)


def test_a_connection_that_sends_nothing_is_closed(start_server, monkeypatch):
    _needs()
    monkeypatch.setenv(limits.IDLE_TIMEOUT_ENV, "2")
    server = start_server(CPP)
    _answers(CPP, server.target)
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        assert _read_to_end(sock) == "closed"
    _answers(CPP, server.target)


# HTTP/2 (RFC 9113) as the hostile peer writes it by hand: a client that keeps to the server's
# SETTINGS (every gRPC client) cannot open a stream too many
SETTINGS, HEADERS, PING = 0x4, 0x1, 0x6
ACK, END_HEADERS = 0x1, 0x4
MAX_CONCURRENT_STREAMS = 0x3
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
CALL = [(":method", "POST"), (":scheme", "http"), (":path", f"/{schema.SERVICE}/InvertStream"),
        (":authority", "x"), ("content-type", "application/grpc"), ("te", "trailers")]


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _read_frame(sock: socket.socket) -> tuple[int, int, bytes]:
    head = _read_exactly(sock, 9)
    return head[3], head[4], _read_exactly(sock, int.from_bytes(head[:3], "big"))


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        part = sock.recv(size - len(data))
        if not part:
            raise ConnectionError("the server closed the connection")
        data += part
    return data


def _server_settings(sock: socket.socket) -> dict[int, int]:
    """The server's SETTINGS, acknowledged: it holds a peer to the limits it has seen acknowledged."""
    sock.sendall(PREFACE + _frame(SETTINGS, 0, 0))
    while True:
        kind, flags, payload = _read_frame(sock)
        if kind == SETTINGS and not flags & ACK:
            sock.sendall(_frame(SETTINGS, ACK, 0))
            return {int.from_bytes(payload[i:i + 2], "big"): int.from_bytes(payload[i + 2:i + 6], "big")
                    for i in range(0, len(payload), 6)}


def _open_streams(sock: socket.socket, encoder: hpack.Encoder, numbers: range) -> None:
    """InvertStream calls opened and left open (headers, no message, no end of stream), the k-th on
    stream 2k + 1."""
    sock.sendall(b"".join(_frame(HEADERS, END_HEADERS, 2 * k + 1, encoder.encode(CALL)) for k in numbers))


def _alive(sock: socket.socket) -> bool:
    """Whether the connection answers a PING: every frame the server sent before it read first."""
    sock.sendall(_frame(PING, 0, 0, b"rpcarena"))
    try:
        while True:
            kind, flags, payload = _read_frame(sock)
            if kind == PING and flags & ACK:
                return payload == b"rpcarena"
    except ConnectionError:
        return False


def test_a_stream_past_the_connections_cap_ends_that_connection_and_the_server_answers_on(start_server):
    """C-core's answer to a peer over the SETTINGS it acknowledged is a protocol error: that
    connection's calls end and it closes; other connections are served on."""
    _needs()
    server = start_server(CPP)
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        assert _server_settings(sock)[MAX_CONCURRENT_STREAMS] == MAX_STREAMS
        encoder = hpack.Encoder()
        _open_streams(sock, encoder, range(MAX_STREAMS))
        assert _alive(sock)  # the cap's streams, all open
        _open_streams(sock, encoder, range(MAX_STREAMS, MAX_STREAMS + 1))
        assert _read_to_end(sock) == "closed"
    _answers(CPP, server.target)
