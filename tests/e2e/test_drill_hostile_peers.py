"""The drill's hostile peers: a request trickled one byte every 5 s is closed within the contract's
60 s by every server; every HTTP server refuses a 64 MB header line and a chunked body past the bound
and stops reading (issue 42, "Servers bounded in time and memory").

The trickle runs against every server at once, with the real 60 s (nothing lowered), so the whole
takes about 70 s rather than 70 s a server. Outcomes are asserted (closed or not, which status),
and the only bound on time is the contract's own 60 s, with 10 s of slack for a loaded machine.
"""

from __future__ import annotations

import select
import socket
import struct
import subprocess
import threading
import time

import psutil
import pytest

from rpcarena import contenders
from rpcarena.codec import frames
from rpcarena.protocol import limits
from tests.e2e.test_hostile_peers import OVER, SERVERS, _address, _answers, _read_to_end, _send_some
from tests.helpers.processes import available as _available

CONTRACT_S = 60.0  # docs/worker-contract.md: a request must arrive whole within it
SLACK_S = 10.0
GAP_S = 5.0  # one byte every GAP_S: far slower than any idle timeout, so only a per-request deadline closes it
_HTTP_HEAD = b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n"
# protocol -> the bytes of a request, trickled: more than CONTRACT_S / GAP_S of them, so it never ends in time
TRICKLED = {
    "http-json": _HTTP_HEAD,
    "http-javaser": _HTTP_HEAD,
    "grpc": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "tcp-raw": struct.pack(">I", 64) + bytes(64),
    "tagless": frames.HEADER.pack(64, 1, 0) + bytes(64),
    "proto-frames": frames.HEADER.pack(64, 1, 0) + bytes(64),
    "typed-json": frames.HEADER.pack(64, 1, 0) + bytes(64),
    "rpyc": struct.pack("!LB", 64, 0) + bytes(64),
    "thrift-binary": struct.pack(">Ii", 0x80010001, 10) + b"EchoString" + bytes(64),
    "thrift-compact": bytes([0x82, 0x21, 1, 10]) + b"EchoString" + bytes(64),
}
TRICKLE_SERVERS = sorted({c.id: c for c in contenders.all_contenders().values()
                          if c.protocol in TRICKLED and not c.id.endswith("-nodelay")})  # same servers as rpyc's


def _trickle(address: tuple[str, int], data: bytes, outcome: dict[str, object], name: str) -> None:
    """Send `data` a byte every GAP_S, reading (and dropping) whatever comes back, until the server
    closes the connection or CONTRACT_S + SLACK_S pass: the time it took, or "still open"."""
    start = time.monotonic()
    try:
        with socket.create_connection(address, timeout=10) as sock:
            for byte in data:
                sock.sendall(bytes([byte]))
                next_byte = time.monotonic() + GAP_S
                while (left := next_byte - time.monotonic()) > 0:
                    if select.select([sock], [], [], left)[0] and not sock.recv(1 << 16):
                        outcome[name] = time.monotonic() - start
                        return
                if time.monotonic() - start > CONTRACT_S + SLACK_S:
                    outcome[name] = "still open"
                    return
    except OSError:  # reset, or a send refused: closed
        outcome[name] = time.monotonic() - start
        return
    outcome[name] = "the whole request went through"


def _started(start_server) -> dict:
    """Every server of TRICKLE_SERVERS, started from this thread (a server dies with the thread that
    started it: PR_SET_PDEATHSIG), one after the other."""
    for name in TRICKLE_SERVERS:
        _available(name)
    return {name: start_server(name) for name in TRICKLE_SERVERS}


def test_every_server_closes_a_request_trickled_past_60_s(start_server):
    servers = _started(start_server)
    outcome: dict[str, object] = {}
    threads = [threading.Thread(target=_trickle, args=(_address(server), TRICKLED[contenders.get(name).protocol],
                                                        outcome, name), daemon=True)
               for name, server in servers.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(CONTRACT_S + SLACK_S + 2 * GAP_S)
    late = sorted(name for name in servers if not isinstance(outcome.get(name), float))
    assert not late, f"{len(late)} of {len(servers)} servers kept the trickle open: {', '.join(late)}"
    for name, server in servers.items():
        if name in SERVERS:  # those a Python client calls (http-javaser's is Java's alone)
            _answers(name, server.target)  # and it serves on


HTTP_SERVERS = [s for s in SERVERS if contenders.get(s).protocol == "http-json"]
LONG_LINE = 64 << 20  # the drill's: rest-fastapi read it all (+128 MB RSS) and never refused it
GROWTH_BOUND = 32 << 20  # what the server may grow by while refusing it


def _answer(sock: socket.socket) -> str:
    """The status of the server's first reply, "closed" when it closed without one, or "still open"
    when neither came within the socket's timeout."""
    try:
        line = sock.makefile("rb").readline()
    except TimeoutError:
        return "still open"
    except OSError:
        return "closed"
    return line.split()[1].decode() if line.startswith(b"HTTP/") else "closed"


def _long_header_line(sock: socket.socket) -> None:
    _send_some(sock, b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nX-Long: ")
    chunk = b"a" * (1 << 20)
    for _ in range(LONG_LINE // len(chunk)):
        try:
            sock.sendall(chunk)
        except OSError:
            return  # refused and closed before the whole was sent: what a bounded server does


def _rss(pid: int) -> int:
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])


@pytest.mark.parametrize("contender_id", HTTP_SERVERS)
def test_a_64_mb_header_line_is_refused_and_the_connection_closed(contender_id, start_server):
    _available(contender_id)
    server = start_server(contender_id)
    before = _rss(server.pid)
    with socket.create_connection(_address(server), timeout=30) as sock:
        _long_header_line(sock)
        grown = _rss(server.pid) - before  # while the line is held, if it is
        status = _answer(sock)
        assert status in ("431", "413", "400", "closed") and _read_to_end(sock) == "closed", status
    assert grown < GROWTH_BOUND, f"{contender_id} grew by {grown >> 20} MiB reading a header line"
    _answers(contender_id, server.target)


def _chunked_past_the_bound(sock: socket.socket) -> tuple[str, str]:
    head = (b"POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"x" * (256 << 10)
    body = (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * (OVER // len(chunk) + 2)
    _send_some(sock, head + body)
    return _answer(sock), _read_to_end(sock)


CHUNKED_ANSWERS = {"rest-warp": {"411"}}  # warp reads no chunked body under a limit (docs/worker-contract.md)


@pytest.mark.parametrize("contender_id", HTTP_SERVERS)
def test_a_chunked_body_past_the_bound_is_refused_and_nothing_more_read(contender_id, start_server):
    _available(contender_id)
    server = start_server(contender_id)
    with socket.create_connection(_address(server), timeout=30) as sock:
        status, after = _chunked_past_the_bound(sock)
        assert status in CHUNKED_ANSWERS.get(contender_id, {"413"}) and after == "closed", (status, after)
    _answers(contender_id, server.target)


def _backlog(port: int) -> int | None:
    """The accept queue's length a listening socket was given: `ss` shows it as Send-Q."""
    done = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, timeout=10, check=False)
    fields = done.stdout.split()
    return int(fields[2]) if len(fields) > 2 else None


def test_every_server_listens_with_the_systems_backlog(start_server):
    """The drill's burst: the Python tcp-raw server's backlog of 5 took 22 of 1,000 connections in 10 s."""
    most = limits.listen_backlog()
    given = {name: _backlog(_address(server)[1]) for name, server in _started(start_server).items()}
    short = {name: backlog for name, backlog in given.items() if backlog != most}
    assert not short, f"listen backlogs below the system's {most}: {short}"
