"""Servers a hostile peer cannot grow: every server refuses a request over the contract's bound
with its protocol's own error (HTTP 413, gRPC RESOURCE_EXHAUSTED, a closed connection) and answers
a normal call after; closes a connection that sends nothing; and closes one that takes none of its
replies.

Real servers on port 0, started as the orchestrator starts them, one per contender for the tests that
share it (`served`), and one with the idle timeout lowered through RPCARENA_IDLE_TIMEOUT_S for
those that wait on it (`idle_served`). Outcomes are asserted, never durations; every wait is bounded.
"""

from __future__ import annotations

import socket
import struct
import time

import pytest

from rpcarena import contenders
from rpcarena.codec import frames
from rpcarena.codec.tagless import varint
from rpcarena.protocol import limits, schema, semantics
from tests.conftest import serve_shared

OVER = limits.MAX_REQUEST_BYTES + 1
IDLE_S = "2"  # short, yet long enough for one call of a server under load
WAIT_S = 30.0  # the most any test waits for a server to close a connection
HTTP_CLAIM = 10 << 30  # a Content-Length of 10 GiB, of which a little is sent


def _http_announced(sock: socket.socket) -> str:
    head = (f"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {HTTP_CLAIM}\r\n\r\n").encode()
    _send_some(sock, head + b"x" * (64 << 10))
    return _status(sock)


def _http_chunked(sock: socket.socket) -> str:
    head = (b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * (256 << 10)
    body = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * (OVER // len(chunk) + 2)
    _send_some(sock, head + body)
    return _status(sock)


def _status(sock: socket.socket) -> str:
    """The status code of the first reply, or "closed"."""
    try:
        line = sock.makefile("rb").readline()
    except OSError:
        return "closed"
    return line.split()[1].decode() if line.startswith(b"HTTP/") else "closed"


def _send_some(sock: socket.socket, data: bytes) -> None:
    """Send what the server will take: it may answer, or close, before the whole is sent."""
    try:
        sock.sendall(data)
    except OSError:
        pass


def _closes(sock: socket.socket, head: bytes) -> str:
    """A header announcing more than the bound, then filler past it: "closed" when the server
    closes the connection (end of stream or reset) rather than reading on."""
    _send_some(sock, head + b"\0" * (OVER + (1 << 20)))
    return _read_to_end(sock)


def _read_to_end(sock: socket.socket) -> str:
    """"closed" once the server closes the connection (end of stream or reset), within WAIT_S."""
    try:
        while sock.recv(1 << 16):  # a reply to a part of the filler read as a request is fine
            pass
    except TimeoutError:
        return "still open"
    except OSError:
        pass
    return "closed"


def _thrift_binary_header() -> bytes:
    name = b"EchoString"
    return (struct.pack(">Ii", 0x80010001, len(name)) + name + struct.pack(">i", 1)  # CALL, seqid 1
            + struct.pack(">bhi", 11, 1, OVER))  # field 1, a string of OVER bytes


def _thrift_compact_header() -> bytes:
    name = b"EchoString"
    return bytes([0x82, 0x21, 1, len(name)]) + name + bytes([0x18]) + varint(OVER)  # CALL, seqid 1; field 1 binary



# protocol -> a hostile request over a raw connection, and the outcome the server must give
RAW_ATTACKS = {
    "http-json": [(_http_announced, "413"), (_http_chunked, "413")],
    "tcp-raw": [(lambda s: _closes(s, struct.pack(">I", OVER)), "closed")],
    "tagless": [(lambda s: _closes(s, frames.HEADER.pack(OVER, 1, 0)), "closed")],
    "proto-frames": [(lambda s: _closes(s, frames.HEADER.pack(OVER, 1, 0)), "closed")],
    "typed-json": [(lambda s: _closes(s, frames.HEADER.pack(OVER, 1, 0)), "closed")],
    "rpyc": [(lambda s: _closes(s, struct.pack("!LB", OVER, 0)), "closed")],
    "thrift-binary": [(lambda s: _closes(s, _thrift_binary_header()), "closed")],
    "thrift-compact": [(lambda s: _closes(s, _thrift_compact_header()), "closed")],
}
# where a server's own library answers otherwise (docs/worker-contract.md, "Bounds every server keeps")
GRPC_REFUSALS = {"grpc-tonic": {"OUT_OF_RANGE"}}  # tonic's status for a message over its limit
OWN_ANSWERS = {("rest-warp", "_http_chunked"): {"411"},  # warp reads no chunked body under a limit
               ("rest-axum", "_http_announced"): {"413", "closed"}}  # the 413, or a reset before it is read
SERVERS = sorted(c.id for c in contenders.all_contenders().values() if c.protocol in (*RAW_ATTACKS, "grpc"))


@pytest.fixture(scope="module")
def idle_served(request, tmp_path_factory):
    """`served`, with the idle timeout lowered to IDLE_S (parametrized indirectly, as `served` is)."""
    yield from serve_shared(request, tmp_path_factory, {limits.IDLE_TIMEOUT_ENV: IDLE_S})


def _address(server) -> tuple[str, int]:
    host, _, port = server.target.rpartition(":")
    return host, int(port)


def _answers(contender_id: str, target: str) -> None:
    """A normal call through the protocol's Python client gets the right reply."""
    contender = contenders.get(contender_id)
    client = contenders.python_client(contender.protocol)(target, "SayHello", 30.0)
    try:
        request = {"name": "after"}
        got = client.call(client.prepare(request))
        assert client.same(got, client.expect(semantics.respond("SayHello", request))), got
    finally:
        client.close()


WARM_TRIES = 3


def _warm(contender_id: str, target: str) -> None:
    """A first call, tried again when it fails: a cold server on a busy machine (a JVM loading its
    classes) may not read its first request within the short idle timeout, which then closes the
    connection under it. Once a call has gone through, the server reads in time."""
    for attempt in range(1, WARM_TRIES + 1):
        try:
            return _answers(contender_id, target)
        except Exception:  # the protocol's own error for a connection closed under a call; the last is raised
            if attempt == WARM_TRIES:
                raise


def _grpc_oversized(target: str) -> str:
    import grpc

    request_type = schema.message_class(schema.methods()["SayHello"].request)
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", -1)]) as channel:
        call = channel.unary_unary(f"/{schema.SERVICE}/SayHello", request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=lambda b: b)
        try:
            call(request_type(name="x" * OVER), timeout=30)
        except grpc.RpcError as error:
            return error.code().name
    return "OK"


@pytest.mark.parametrize("served", SERVERS, indirect=True)
def test_a_request_over_the_bound_gets_the_protocols_error_and_the_server_answers_on(served):
    server, contender_id = served, served.contender.id
    protocol = contenders.get(contender_id).protocol
    if protocol == "grpc":
        assert _grpc_oversized(server.target) in GRPC_REFUSALS.get(contender_id, {"RESOURCE_EXHAUSTED"})
    for attack, want in RAW_ATTACKS.get(protocol, []):
        with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
            assert attack(sock) in OWN_ANSWERS.get((contender_id, attack.__name__), {want}), attack
    _answers(contender_id, server.target)


@pytest.mark.parametrize("idle_served", SERVERS, indirect=True)
def test_a_connection_that_sends_nothing_is_closed(idle_served):
    server, contender_id = idle_served, idle_served.contender.id
    _warm(contender_id, server.target)
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        assert _read_to_end(sock) == "closed"
    _answers(contender_id, server.target)


TCP_ESTABLISHED = 1  # tcpi_state, the first byte of TCP_INFO


@pytest.mark.parametrize("idle_served", [s for s in SERVERS if contenders.get(s).protocol == "tcp-raw"], indirect=True)
def test_a_peer_that_takes_no_reply_is_closed(idle_served):
    """Echo requests sent until neither side's buffers take more, no reply read: the server's
    write stalls, and it must give the connection up rather than hold it."""
    server, contender_id = idle_served, idle_served.contender.id
    with socket.create_connection(_address(server), timeout=WAIT_S) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        frame = struct.pack(">I", 1 << 20) + b"\0" * (1 << 20)
        _fill(sock, frame)
        deadline = time.monotonic() + WAIT_S
        while _state(sock) == TCP_ESTABLISHED and time.monotonic() < deadline:
            _fill(sock, frame)  # keep the server's reads busy: it is its writes that must fail
            time.sleep(0.1)
        assert _state(sock) != TCP_ESTABLISHED
    _answers(contender_id, server.target)


def _fill(sock: socket.socket, frame: bytes) -> None:
    try:
        while True:
            sock.send(frame)
    except OSError:  # full (EAGAIN), or reset once the server gave up
        pass


def _state(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


SLOWLORIS = 200


@pytest.mark.parametrize("served", [s for s in SERVERS if contenders.get(s).protocol == "http-json"], indirect=True)
def test_the_server_answers_while_200_slowloris_connections_are_held(served):
    """200 connections each holding a request whose headers never end: a server whose handler
    threads wait on them answers nobody else."""
    server, contender_id = served, served.contender.id
    held = []
    try:
        for _ in range(SLOWLORIS):
            sock = socket.create_connection(_address(server), timeout=WAIT_S)
            sock.sendall(b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
            held.append(sock)
        _answers(contender_id, server.target)
    finally:
        for sock in held:
            sock.close()
