"""Frames with a call id over one persistent TCP connection, and a threaded frame server.

A frame is a 10-byte little-endian header (body length u32, call id u32, kind
u16) and the body. On a request the kind says which method (tagless) or is 0
(typed-json, whose body names the method); on a reply it is the status (0 = ok,
otherwise the body is a UTF-8 message). Replies carry the call id of their
request, so a client may pipeline and a server may answer in any order. A frame
longer than the limit (a server's: `limits.MAX_REQUEST_BYTES`) closes the
connection before anything is allocated, and a body is read a chunk at a time,
so memory follows the bytes that arrive, never a length a header only announced.
A server closes a connection that neither sends nor takes its replies for
`limits.idle_timeout_s()`, and one whose request has not arrived whole within it (`watched`).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import BinaryIO, cast

from rpcarena.protocol import limits

HEADER = struct.Struct("<IIH")
MAX_FRAME = 64 << 20  # what a client reads: a reply may be longer than a request
CHUNK = 1 << 20  # the most a body read asks for at once
READ_BUFFER = 1 << 16  # a connection reader's buffer
OK, BAD_REQUEST, UNKNOWN_METHOD, INTERNAL = 0, 1, 2, 3
STATUS_NAMES = {BAD_REQUEST: "bad_request", UNKNOWN_METHOD: "unknown_method", INTERNAL: "internal"}

Handler = Callable[[int, bytes], tuple[int, bytes]]


class FrameError(ConnectionError):
    """A frame over the size limit or cut short: the connection is closed."""


class RemoteError(Exception):
    """The server answered a call with an error status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{STATUS_NAMES.get(status, status)}: {message}")
        self.status = status

    @property
    def kind(self) -> str:
        return f"status_{STATUS_NAMES.get(self.status, str(self.status))}"


def pack(call_id: int, kind: int, body: bytes) -> bytes:
    return HEADER.pack(len(body), call_id, kind) + body


def buffered_reader(conn: socket.socket) -> io.BufferedReader:
    """The read side of `conn`, buffered, for `read_frame`."""
    # typeshed types makefile("rb", n) for a buffer n other than -1, 0 or 1 as a bare IOBase;
    # CPython returns an io.BufferedReader
    return cast(io.BufferedReader, conn.makefile("rb", buffering=READ_BUFFER))


def read_frame(reader: BinaryIO, max_frame: int = MAX_FRAME) -> tuple[int, int, bytes]:
    """(call id, kind, body) of the next frame; ConnectionError at end of stream."""
    header = reader.read(HEADER.size)
    if header is None:  # nothing came within the idle timeout (see set_idle_timeout)
        raise TimeoutError("connection idle")
    if len(header) < HEADER.size:
        raise ConnectionError("connection closed by peer") if not header else FrameError("truncated header")
    size, call_id, kind = HEADER.unpack(header)
    if size > max_frame:
        raise FrameError(f"frame of {size} bytes exceeds the {max_frame}-byte limit")
    body = _read_body(reader, size)
    if len(body) < size:
        raise FrameError(f"frame cut short: {len(body)} of {size} bytes")
    return call_id, kind, body


def _read_body(reader: BinaryIO, size: int) -> bytes:
    """Up to `size` bytes (fewer at the end of the stream or after an idle timeout), asked for a
    CHUNK at a time: a buffered read allocates all it is asked for before the bytes come."""
    parts = []
    while size > 0:
        part = reader.read(min(size, CHUNK))
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on exactly (host, port), never shared (no SO_REUSEPORT); OSError when
    the address cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(limits.listen_backlog())
    except OSError:
        sock.close()
        raise
    return sock


class Watched:
    """One connection under the request deadline: `answered` after each reply."""

    __slots__ = ("sock", "seconds", "answers", "seen", "since")

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        self.sock, self.seconds = sock, seconds
        self.answers = self.seen = 0
        self.since = time.monotonic()

    def answered(self) -> None:
        self.answers += 1


_WATCHED: set[Watched] = set()
_WATCH_LOCK = threading.Lock()
_WATCHER_PID: list[int] = []  # the process whose watcher runs (a forked worker starts its own)


@contextlib.contextmanager
def watched(sock: socket.socket, seconds: float) -> Iterator[Watched]:
    """The contract's request deadline (docs/worker-contract.md): a connection that has answered no
    request for `seconds` (since it was opened, or since its last reply) is shut down, however its
    bytes come. SO_RCVTIMEO restarts at every byte, so a request trickled a byte every 5 s lived for
    ever. One thread per process looks at every connection a few times a second; a request costs its
    connection one counter increment."""
    one = Watched(sock, seconds)
    with _WATCH_LOCK:
        _WATCHED.add(one)
        if _WATCHER_PID != [os.getpid()]:
            _WATCHER_PID[:] = [os.getpid()]
            threading.Thread(target=_watch, daemon=True, name="request-deadline").start()
    try:
        yield one
    finally:
        with _WATCH_LOCK:
            _WATCHED.discard(one)


def _watch() -> None:
    while True:
        time.sleep(WATCH_PERIOD_S)
        now = time.monotonic()
        with _WATCH_LOCK:
            every = list(_WATCHED)
        for one in every:
            if one.sock.fileno() < 0:  # closed by its own thread without leaving the watch
                with _WATCH_LOCK:
                    _WATCHED.discard(one)
            elif one.answers != one.seen:
                one.seen, one.since = one.answers, now
            elif now - one.since >= one.seconds:
                with contextlib.suppress(OSError):  # gone already
                    one.sock.shutdown(socket.SHUT_RDWR)  # its reads end, and its thread closes it


WATCH_PERIOD_S = 0.25  # a stalled request is closed this long after its deadline at most


def set_idle_timeout(sock: socket.socket, seconds: float) -> None:
    """Make a blocking socket's recv and send fail (EAGAIN, an OSError) after `seconds` without
    progress. The kernel's SO_RCVTIMEO/SO_SNDTIMEO, not `settimeout`, which would poll() before
    every recv and send; a buffered reader over it returns None (nothing) or fewer bytes then."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(seconds))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(seconds))


def _timeval(seconds: float) -> bytes:
    whole = int(seconds)
    return struct.pack("ll", whole, int((seconds - whole) * 1_000_000))


def send_within(sock: socket.socket, data: bytes, seconds: float) -> None:
    """`sock.sendall(data)` that fails (TimeoutError) unless the peer takes it all within
    `seconds`: under SO_SNDTIMEO alone a send that moves a byte succeeds, so a peer taking a
    little at a time, or none after a first part, held `sendall` twice the timeout or for ever.
    The usual reply goes out in one send."""
    deadline = time.monotonic() + seconds
    sent = sock.send(data)
    if sent == len(data):
        return
    view = memoryview(data)[sent:]
    try:
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the peer took no reply for {seconds:g} s")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(left))
            view = view[sock.send(view):]
    finally:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(seconds))


def serve_forever(listener: socket.socket, handle: Handler, max_frame: int = limits.MAX_REQUEST_BYTES,
                  idle_timeout_s: float | None = None) -> None:
    """Accept connections, each served by a thread of its own, frames answered as they come,
    until the listener is closed."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError as error:
            if error.errno in (errno.EINVAL, errno.EBADF):  # the listener was shut down: done
                return
            raise
        threading.Thread(target=serve_connection, args=(conn, handle, max_frame, idle_timeout_s),
                         daemon=True).start()


def serve_connection(conn: socket.socket, handle: Handler, max_frame: int = limits.MAX_REQUEST_BYTES,
                     idle_timeout_s: float | None = None) -> None:
    """Answer one connection's frames until it closes, sends a bad frame, or idles; the idle
    timeout is `limits.idle_timeout_s()` unless given (a short one in tests)."""
    idle = limits.idle_timeout_s() if idle_timeout_s is None else idle_timeout_s
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    set_idle_timeout(conn, idle)
    reader = buffered_reader(conn)
    try:
        with watched(conn, idle) as deadline:
            while True:
                call_id, kind, body = read_frame(reader, max_frame)
                status, reply = handle(kind, body)
                send_within(conn, pack(call_id, status, reply), idle)
                deadline.answered()
    except OSError:  # closed, reset, idle, late, or a bad frame: drop this connection only
        pass
    finally:
        reader.close()
        conn.close()
