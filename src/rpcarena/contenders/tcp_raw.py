"""tcp-raw: length-prefixed frames echoed over one TCP connection; the floor.

No serialization, no framing beyond a 4-byte length: what any RPC in Python
costs at the least on this machine. The payload is the protobuf encoding of the
request, so its size matches the other contenders'.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from collections.abc import Mapping
from typing import Any

from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import schema

HEADER = struct.Struct(">I")
MAX_FRAME = 64 << 20


def recv_exact(sock: socket.socket, size: int) -> bytes:
    view = bytearray(size)
    got = 0
    while got < size:
        n = sock.recv_into(memoryview(view)[got:], size - got)
        if n == 0:
            raise ConnectionError("connection closed by peer")
        got += n
    return bytes(view)


def recv_frame(sock: socket.socket) -> bytes:
    (size,) = HEADER.unpack(recv_exact(sock, HEADER.size))
    if size > MAX_FRAME:
        raise ConnectionError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
    return recv_exact(sock, size)


class _EchoHandler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                payload = recv_frame(self.request)
                self.request.sendall(HEADER.pack(len(payload)) + payload)
        except (ConnectionError, OSError):
            return


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class TcpRaw(PythonContender):
    id = "tcp-raw"
    protocol = "tcp-raw"
    description = "length-prefixed bytes echoed over one TCP connection (the floor)"
    services = None  # it echoes any request's bytes

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            server = _Server((host, port), _EchoHandler)
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
