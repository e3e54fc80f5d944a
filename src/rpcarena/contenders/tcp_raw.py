"""tcp-raw: length-prefixed frames echoed over one TCP connection; the floor.

No serialization, no framing beyond a 4-byte length: what any RPC in Python
costs at the least on this machine. The payload is the protobuf encoding of the
request, so its size matches the other contenders'. A frame is read as its bytes
arrive (a length is a claim, not memory), and the server closes a connection
idle for `frames.IDLE_TIMEOUT_S`.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from collections.abc import Mapping
from typing import Any

from rpcarena.codec import frames
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import schema

HEADER = struct.Struct(">I")
MAX_FRAME = 64 << 20


def recv_exact(sock: socket.socket, size: int) -> bytes:
    """Exactly `size` bytes, asked for at most a chunk at a time: memory follows the bytes that
    arrive, so a length a peer only announced costs nothing."""
    parts = []
    while size > 0:
        part = sock.recv(min(size, frames.CHUNK))
        if not part:
            raise ConnectionError("connection closed by peer")
        parts.append(part)
        size -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def recv_frame(sock: socket.socket) -> bytes:
    (size,) = HEADER.unpack(recv_exact(sock, HEADER.size))
    if size > MAX_FRAME:
        raise ConnectionError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
    return recv_exact(sock, size)


class _EchoHandler(socketserver.BaseRequestHandler):
    server: EchoServer

    def handle(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        frames.set_idle_timeout(self.request, self.server.idle_timeout_s)
        try:
            while True:
                payload = recv_frame(self.request)
                self.request.sendall(HEADER.pack(len(payload)) + payload)
        except OSError:  # closed, reset, idle, or a frame over the limit
            return


class EchoServer(socketserver.ThreadingTCPServer):
    """The echo server, a thread per connection; `idle_timeout_s` short in tests."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], idle_timeout_s: float = frames.IDLE_TIMEOUT_S) -> None:
        self.idle_timeout_s = idle_timeout_s
        super().__init__(address, _EchoHandler)


class TcpRaw(PythonContender):
    id = "tcp-raw"
    protocol = "tcp-raw"
    description = "length-prefixed bytes echoed over one TCP connection (the floor)"
    services = None  # it echoes any request's bytes

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            server = EchoServer((host, port))
        except OSError as error:
            raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
        announce_ready(server.server_address[1])
        threading.Thread(target=server.serve_forever, daemon=True).start()
        threading.Event().wait()


class TcpRawClient(Client):
    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        host, _, port = target.rpartition(":")
        self._request_type = schema.message_class(schema.methods()[method].request)
        self._address = (host, int(port))
        self._sock = self._connect()

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self._address, timeout=self.timeout_s)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def reconnect(self) -> None:
        self._sock.close()  # a frame may be half read: the stream cannot be trusted any more
        self._sock = self._connect()

    def prepare(self, request: dict) -> Any:
        from google.protobuf import json_format

        payload = json_format.ParseDict(request, self._request_type()).SerializeToString()
        return HEADER.pack(len(payload)) + payload

    def expect(self, response: dict) -> Any:
        return None  # the reply must equal what was sent

    def call(self, frame: bytes) -> Any:
        self._sock.sendall(frame)
        return recv_frame(self._sock), frame

    def same(self, got: Any, want: Any) -> bool:
        reply, sent = got
        return reply == sent[HEADER.size:]

    def close(self) -> None:
        self._sock.close()
