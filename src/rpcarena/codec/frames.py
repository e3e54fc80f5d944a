"""Frames with a call id over one persistent TCP connection, and a threaded frame server.

A frame is a 10-byte little-endian header (body length u32, call id u32, kind
u16) and the body. On a request the kind says which method (tagless) or is 0
(typed-json, whose body names the method); on a reply it is the status (0 = ok,
otherwise the body is a UTF-8 message). Replies carry the call id of their
request, so a client may pipeline and a server may answer in any order. A frame
longer than the limit closes the connection before anything is allocated.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable
from typing import BinaryIO

HEADER = struct.Struct("<IIH")
MAX_FRAME = 64 << 20
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


def read_frame(reader: BinaryIO, max_frame: int = MAX_FRAME) -> tuple[int, int, bytes]:
    """(call id, kind, body) of the next frame; ConnectionError at end of stream."""
    header = reader.read(HEADER.size)
    if len(header) < HEADER.size:
        raise ConnectionError("connection closed by peer") if not header else FrameError("truncated header")
    size, call_id, kind = HEADER.unpack(header)
    if size > max_frame:
        raise FrameError(f"frame of {size} bytes exceeds the {max_frame}-byte limit")
    body = reader.read(size) if size else b""
    if len(body) < size:
        raise FrameError(f"frame cut short: {len(body)} of {size} bytes")
    return call_id, kind, body


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on exactly (host, port), never shared (no SO_REUSEPORT); OSError when
    the address cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


def serve_forever(listener: socket.socket, handle: Handler, max_frame: int = MAX_FRAME) -> None:
    """Accept connections, each served by a thread of its own, frames answered as they come."""
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve_connection, args=(conn, handle, max_frame), daemon=True).start()


def serve_connection(conn: socket.socket, handle: Handler, max_frame: int = MAX_FRAME) -> None:
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    reader = conn.makefile("rb", buffering=1 << 16)
    try:
        while True:
            call_id, kind, body = read_frame(reader, max_frame)
            status, reply = handle(kind, body)
            conn.sendall(pack(call_id, status, reply))
    except OSError:  # closed, reset, or a bad frame: drop this connection only
        pass
    finally:
        reader.close()
        conn.close()
