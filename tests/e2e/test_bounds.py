"""Bounded resources in every server: a count over the cap is refused naming it, a lying header
costs no memory, an idle connection is closed.

Real servers, started as the orchestrator starts them (ServerProcess, port 0), one per contender for
the module's tests (`served`). Memory is read
from /proc (VmRSS of the server and its child processes) or traced in-process; no duration is
ever asserted, and every wait is bounded.
"""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import threading
import time
import tracemalloc
from pathlib import Path

import psutil
import pytest

from rpcarena import contenders
from rpcarena.codec import frames
from rpcarena.codec import tagless as tagless_codec
from rpcarena.contenders import tagless, tcp_raw
from rpcarena.contenders.base import PythonContender
from rpcarena.protocol import limits, semantics

CAP = 1_000_000  # the contract's cap on GetRandNums' count and on any count a peer announces
CLAIM = limits.MAX_REQUEST_BYTES  # a header announcing a frame at the bound, which never comes
CONNECTIONS = 50
RSS_LIMIT = 16 << 20
SETTLE_S = 1.5  # how long RSS is watched after the last header went out


# The cap

def test_the_cap_is_the_contracts() -> None:
    assert semantics.MAX_COUNT == CAP
    assert len(semantics.rand_nums(CAP, 1)) == CAP
    with pytest.raises(semantics.Refused, match=f"GetRandNums count {CAP + 1} is over the cap of {CAP}"):
        semantics.rand_nums(CAP + 1, 1)


# every server of an operation, and the error kind its refusal is counted as by the Python client
REFUSAL_KINDS = {"grpc": "status_invalid_argument", "http-json": "status_400", "tagless": "status_bad_request",
                 "typed-json": "status_bad_request", "thrift-binary": "status_application_error",
                 "thrift-compact": "status_application_error", "rpyc": "status_remote_error"}
SERVERS = [c.id for c in contenders.all_contenders().values() if c.protocol in REFUSAL_KINDS]
OVER = {"count": CAP + 1, "seed": 1}


@pytest.mark.parametrize("served", SERVERS, indirect=True)
def test_rand_nums_over_the_cap_is_refused_naming_the_cap(served):
    server, contender = served, contenders.get(served.contender.id)
    client_id = contender.default_client() if isinstance(contender, PythonContender) else "py"
    client = contenders.python_client(contender.protocol, client_id)(server.target, "GetRandNums", 30.0)
    try:
        with pytest.raises(Exception) as refused:
            client.call(client.prepare(OVER))
        assert client.classify(refused.value) == REFUSAL_KINDS[contender.protocol], refused.value
        if contender.protocol == "http-json":  # the client keeps the status only: read the body
            assert str(CAP) in _post(server.target, "/arena/GetRandNums", OVER)
        else:
            assert str(CAP) in str(refused.value)
        small = {"count": 3, "seed": 1}  # and the server goes on answering
        got = client.call(client.prepare(small))
        assert client.same(got, client.expect(semantics.respond("GetRandNums", small)))
    finally:
        client.close()


def _post(target: str, path: str, body: dict) -> str:
    import httpx

    reply = httpx.post(f"http://{target}{path}", json=body, timeout=30.0)
    assert reply.status_code == 400
    return reply.text


def test_a_tagless_repeated_count_over_the_cap_is_a_bad_request() -> None:
    strings = tagless.method_index("EchoStrings")
    body = tagless_codec.varint(CAP + 1) + b"\x00" * (CAP + 1)  # that many empty strings: 1 byte each
    status, reply = tagless.handle(strings, body)
    assert status == frames.BAD_REQUEST and f"over the cap of {CAP}".encode() in reply
    status, _ = tagless.handle(strings, tagless_codec.varint(CAP) + b"\x00" * CAP)
    assert status == frames.OK


# Frames read as their bytes arrive, and idle connections closed (unit)

def test_a_lying_header_allocates_what_arrives_not_its_claim() -> None:
    """tagless and typed-json frames: a header claiming 64 MiB followed by 100 bytes."""
    stream = io.BufferedReader(io.BytesIO(frames.HEADER.pack(CLAIM, 1, 0) + b"x" * 100))
    with _peak_allocation() as peak, pytest.raises(frames.FrameError, match="cut short: 100 of"):
        frames.read_frame(stream)
    assert peak() < 2 << 20  # what one read asks for at most, and the 100 bytes


def test_a_lying_tcp_raw_header_allocates_what_arrives_not_its_claim() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(tcp_raw.HEADER.pack(CLAIM) + b"x" * 100)
        theirs.shutdown(socket.SHUT_WR)
        with _peak_allocation() as peak, pytest.raises(ConnectionError):
            tcp_raw.recv_frame(ours)
    assert peak() < 2 << 20  # what one read asks for at most, and the 100 bytes


@contextlib.contextmanager
def _peak_allocation():
    """The most Python had allocated at once inside the block, readable after it."""
    tracemalloc.start()
    peak = [0]
    try:
        yield lambda: peak[0]
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


IDLE_S = 0.2  # a short idle timeout; each wait below is bounded by the client's own 10 s


def test_the_tcp_raw_server_closes_idle_connections() -> None:
    server = tcp_raw.EchoServer(("127.0.0.1", 0), idle_timeout_s=IDLE_S)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(server.server_address, timeout=10) as sock:
            sock.sendall(tcp_raw.HEADER.pack(3) + b"abc")
            assert tcp_raw.recv_frame(sock) == b"abc"
            sock.sendall(tcp_raw.HEADER.pack(10) + b"abc")  # a frame begun, then nothing
            assert sock.recv(1) == b""
        with socket.create_connection(server.server_address, timeout=10) as sock:
            assert sock.recv(1) == b""  # nothing at all
    finally:
        server.shutdown()
        server.server_close()


def test_the_frame_server_closes_idle_connections() -> None:
    """tagless and typed-json (its workers serve with `frames.serve_forever` too)."""
    listener = frames.listen("127.0.0.1", 0)
    thread = threading.Thread(target=frames.serve_forever, args=(listener, tagless.handle),
                              kwargs={"idle_timeout_s": IDLE_S}, daemon=True)
    thread.start()
    try:
        hello = tagless.method_index("SayHello")
        with socket.create_connection(listener.getsockname(), timeout=10) as sock:
            sock.sendall(frames.pack(1, hello, b"\x02ok"))
            assert frames.read_frame(sock.makefile("rb"))[:2] == (1, frames.OK)
            sock.sendall(frames.HEADER.pack(10, 2, hello) + b"\x02")  # a frame begun, then nothing
            assert sock.recv(1) == b""
        with socket.create_connection(listener.getsockname(), timeout=10) as sock:
            assert sock.recv(1) == b""
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(10)
    assert not thread.is_alive()


# Headers announcing 64 MiB, against every own-protocol server

def _tcp_raw(size: int) -> bytes:
    return struct.pack(">I", size)


def _call_id_frame(size: int) -> bytes:
    return frames.HEADER.pack(size, 1, 0)


# own-protocol servers -> how a header announcing `size` bytes looks on their wire
OWN_PROTOCOL = {"tcp-raw": _tcp_raw, "tcp-raw-go": _tcp_raw, "tcp-raw-rust": _tcp_raw, "tcp-raw-java": _tcp_raw,
                "tagless": _call_id_frame, "tagless-go": _call_id_frame, "typed-json": _call_id_frame}


def rss_bytes(pid: int) -> int:
    """VmRSS of a process and its live descendants (typed-json's workers), from /proc."""
    total = 0
    pids = [pid] + [child.pid for child in psutil.Process(pid).children(recursive=True)]
    for p in pids:
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue  # gone meanwhile
        total += next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:"))
    return total


def _round_trip(target: tuple[str, int], contender_id: str) -> None:
    """One well-formed frame and its whole reply: the server works, and has accepted the
    connections made before this one."""
    with socket.create_connection(target, timeout=10) as sock:
        if OWN_PROTOCOL[contender_id] is _tcp_raw:
            sock.sendall(_tcp_raw(3) + b"abc")
            want = 7
        else:  # an unknown method: a short error reply, whatever the protocol's methods
            sock.sendall(frames.pack(9, 999 if contender_id.startswith("tagless") else 0, b"{}"))
            want = frames.HEADER.size
        got = b""
        while len(got) < want:
            chunk = sock.recv(want - len(got))
            assert chunk, f"{contender_id} closed a well-formed connection"
            got += chunk


@pytest.mark.parametrize("served", list(OWN_PROTOCOL), indirect=True)
def test_headers_announcing_64_mib_frames_cost_no_memory(served):
    server, contender_id = served, served.contender.id
    host, _, port = server.target.rpartition(":")
    target = (host, int(port))
    _round_trip(target, contender_id)
    before = rss_bytes(server.pid)
    socks = []
    try:
        for _ in range(CONNECTIONS):
            sock = socket.create_connection(target, timeout=10)
            sock.sendall(OWN_PROTOCOL[contender_id](CLAIM))
            socks.append(sock)
        _round_trip(target, contender_id)
        peak, deadline = before, time.monotonic() + SETTLE_S
        while time.monotonic() < deadline and peak - before < RSS_LIMIT:
            peak = max(peak, rss_bytes(server.pid))
            time.sleep(0.05)
    finally:
        for sock in socks:
            sock.close()
    assert peak - before < RSS_LIMIT, f"{contender_id}: RSS {before >> 20} -> {peak >> 20} MiB"
    _round_trip(target, contender_id)  # and it still serves


class _CountingSocket:
    """A socket whose recv calls are counted."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.reads = sock, 0

    def recv(self, size: int) -> bytes:
        self.reads += 1
        return self.sock.recv(size)


def test_the_tcp_raw_echo_reads_a_frame_in_one_recv_and_keeps_what_follows() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        counted = _CountingSocket(ours)
        inbox = tcp_raw.Inbox(counted)  # type: ignore[arg-type]
        frame = tcp_raw.HEADER.pack(3) + b"abc"
        theirs.sendall(frame)
        assert inbox.frame() == b"abc" and counted.reads == 1  # header and payload in one read
        theirs.sendall(frame + tcp_raw.HEADER.pack(2) + b"de" + tcp_raw.HEADER.pack(4))  # pipelined, the last cut
        assert inbox.frame() == b"abc" and inbox.frame() == b"de" and counted.reads == 2
        theirs.sendall(b"wxyz")
        assert inbox.frame() == b"wxyz" and counted.reads == 3
        theirs.sendall(tcp_raw.HEADER.pack(tcp_raw.MAX_FRAME + 1))
        with pytest.raises(ConnectionError, match="exceeds"):
            inbox.frame()
