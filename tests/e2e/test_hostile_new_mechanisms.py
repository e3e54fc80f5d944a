"""Connect, Cap'n Proto and HTTP/3 servers (issue 45) against a hostile peer: a request over the contract's
bound gets the protocol's own answer (Connect's resource_exhausted, HTTP 429; a closed Cap'n Proto
connection) and the server answers a normal call after; a connection that sends nothing is closed; and
the Connect server (HTTP/1.1) answers while 200 slowloris connections are held. HTTP/3's bounds are
QUIC's and are checked by the Go worker's own tests (`internal/contenders/resth3`); here its server
answers calls through its native client.

Real servers on port 0, started as the orchestrator starts them; a normal call is made by the
contender's own native client (`drive`), or for Connect by a plain HTTP POST, as curl would make it.
Outcomes are asserted, never durations; every wait is bounded.
"""

from __future__ import annotations

import http.client
import json
import socket
import struct
import subprocess

import pytest

from rpcarena import contenders
from rpcarena.protocol import limits
from tests.e2e.test_hostile_peers import (
    HTTP_CLAIM,
    IDLE_S,
    OVER,
    SLOWLORIS,
    WAIT_S,
    _address,
    _read_to_end,
    _send_some,
    _status,
)
from tests.helpers.processes import available as _available

CONNECT = "connect-go"


def _driven(contender_id: str, target: str) -> dict:
    """Five SayHello calls through the contender's native client; its result document."""
    spec = {"contract": 1, "contender": contender_id, "target": target, "method": "SayHello",
            "requests": [{"name": "after"}], "responses": [{"message": "Hello after"}], "clients": 1,
            "warmup_s": 0, "calls": 5, "timeout_ms": 10000, "sample_limit": 10}
    argv = contenders.get(contender_id).driver_argv(None)
    done = subprocess.run(argv, input=json.dumps(spec), capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _answers(contender_id: str, target: str) -> None:
    result = _driven(contender_id, target)
    assert result["calls"] == 5 and not any(result["errors"].values()), result


def _connect_answers(target: str) -> None:
    """A Connect unary call as any HTTP client makes it: a POST of the request in JSON."""
    host, port = _address_of(target)
    conn = http.client.HTTPConnection(host, port, timeout=WAIT_S)
    try:
        conn.request("POST", "/arena.Arena/SayHello", b'{"name": "after"}', {"Content-Type": "application/json"})
        reply = conn.getresponse()
        assert (reply.status, json.loads(reply.read())) == (200, {"message": "Hello after"})
    finally:
        conn.close()


def _address_of(target: str) -> tuple[str, int]:
    host, _, port = target.rpartition(":")
    return host, int(port)


def _connect_announced(sock: socket.socket) -> str:
    head = (f"POST /arena.Arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/proto\r\n"
            f"Content-Length: {HTTP_CLAIM}\r\n\r\n").encode()
    _send_some(sock, head + b"\0" * (OVER + (1 << 20)))
    return _status(sock)


def _connect_chunked(sock: socket.socket) -> str:
    head = b"POST /arena.Arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/proto\r\n" \
           b"Transfer-Encoding: chunked\r\n\r\n"
    chunk = b"\0" * (256 << 10)
    _send_some(sock, head + (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * (OVER // len(chunk) + 2))
    return _status(sock)


def _capnp_announced(sock: socket.socket) -> str:
    """A Cap'n Proto frame whose segment table announces one segment past the bound, then filler."""
    words = OVER // 8 + 1
    _send_some(sock, struct.pack("<II", 0, words) + b"\0" * (OVER + (1 << 20)))
    return _read_to_end(sock)


def _capnp_many_segments(sock: socket.socket) -> str:
    """A Cap'n Proto frame of 600 one-word segments: more than the 512 a reader takes."""
    segments = 600
    table = struct.pack(f"<{segments + 1}I", segments - 1, *([1] * segments))
    _send_some(sock, table + b"\0" * (len(table) % 8) + b"\0" * (8 * segments))
    return _read_to_end(sock)


# contender -> hostile requests over a raw connection, each with the outcome the server must give
ATTACKS = {CONNECT: [(_connect_announced, "429"), (_connect_chunked, "429")],
           "capnp-rust": [(_capnp_announced, "closed"), (_capnp_many_segments, "closed")]}


def _normal_call(contender_id: str, target: str) -> None:
    if contender_id == CONNECT:
        _connect_answers(target)
    else:
        _answers(contender_id, target)


@pytest.mark.parametrize("contender_id", sorted(ATTACKS))
def test_a_request_over_the_bound_gets_the_protocols_answer_and_the_server_answers_on(contender_id, start_server):
    _available(contender_id)
    server = start_server(contender_id)
    for attack, want in ATTACKS[contender_id]:
        with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
            assert attack(sock) == want, attack.__name__
    _normal_call(contender_id, server.target)


@pytest.mark.parametrize("contender_id", sorted(ATTACKS))
def test_a_connection_that_sends_nothing_is_closed(contender_id, start_server, monkeypatch):
    _available(contender_id)
    monkeypatch.setenv(limits.IDLE_TIMEOUT_ENV, IDLE_S)
    server = start_server(contender_id)
    _normal_call(contender_id, server.target)
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        assert _read_to_end(sock) == "closed"
    _normal_call(contender_id, server.target)


def test_a_capnp_message_begun_and_not_finished_is_closed_at_the_idle_timeout(start_server, monkeypatch):
    """capnp-futures allocates a message's announced segments (up to the bound) when its segment table
    arrives: a peer that announces 4 MiB and sends a little holds them only until the idle timeout."""
    _available("capnp-rust")
    monkeypatch.setenv(limits.IDLE_TIMEOUT_ENV, IDLE_S)
    server = start_server("capnp-rust")
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        sock.sendall(struct.pack("<II", 0, limits.MAX_REQUEST_BYTES // 8) + b"\0" * 4096)
        assert _read_to_end(sock) == "closed"
    _answers("capnp-rust", server.target)


def test_the_connect_server_answers_while_200_slowloris_connections_are_held(start_server):
    _available(CONNECT)
    server = start_server(CONNECT)
    held = []
    try:
        for _ in range(SLOWLORIS):
            sock = socket.create_connection(_address(server), timeout=WAIT_S)
            sock.sendall(b"POST /arena.Arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
            held.append(sock)
        _connect_answers(server.target)
    finally:
        for sock in held:
            sock.close()


def test_the_http3_server_answers_its_client(start_server):
    _available("rest-h3-go")
    server = start_server("rest-h3-go")
    _answers("rest-h3-go", server.target)
