"""tcp-raw: length-prefixed frames echoed over one TCP connection; the floor.

No serialization, no framing beyond a 4-byte length: what any RPC in Python
costs at the least on this machine. The payload is the protobuf encoding of the
request, so its size matches the other contenders'. Each side reads through one
buffer per connection (`Inbox`), so one recv normally takes a whole frame; a frame
is read as its bytes arrive (a length is a claim, not memory); the server reads
frames up to `limits.MAX_REQUEST_BYTES` and closes a connection that sends
nothing, or takes none of its echo, for `limits.idle_timeout_s()`.
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
from rpcarena.protocol import limits, schema
from rpcarena.userschema.samples import message_of

HEADER = struct.Struct(">I")
MAX_FRAME = limits.MAX_REQUEST_BYTES  # an echo: a reply is as long as its request


FIRST_READ = 16 << 10  # the room a read gets at least: a small frame and what follows it come in one


class Inbox:
    """What a connection has received and not yet consumed: one recv normally takes a whole frame
    (the floor must cost the least a call can), and bytes past it (a pipelined next frame) wait
    here. A read asks for what the frame still lacks, a chunk at most, so a length a peer only
    announced costs nothing."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.held = bytearray()

    def frame(self, expect: int = 0) -> bytes:
        """The next frame's payload; `expect` is the size of the reply awaited, when known."""
        while True:
            size = HEADER.unpack_from(self.held)[0] if len(self.held) >= HEADER.size else None
            if size is not None and size > MAX_FRAME:
                raise ConnectionError(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte limit")
            end = HEADER.size + (size or 0)
            if size is not None and len(self.held) >= end:
                payload = bytes(self.held[HEADER.size:end])
                del self.held[:end]
                return payload
            part = self.sock.recv(max(min(end - len(self.held), frames.CHUNK), FIRST_READ, expect))
            if not part:
                raise ConnectionError("connection closed by peer")
            if not self.held and len(part) >= HEADER.size and len(part) == HEADER.size + HEADER.unpack_from(part)[0]:
                return part[HEADER.size:]  # the usual case: exactly one frame, no copy into the buffer
            self.held += part


def recv_frame(sock: socket.socket) -> bytes:
    """One frame's payload from a socket nothing else reads (no bytes past it are kept)."""
    return Inbox(sock).frame()


class _EchoHandler(socketserver.BaseRequestHandler):
    server: EchoServer

    def handle(self) -> None:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        frames.set_idle_timeout(self.request, self.server.idle_timeout_s)
        inbox = Inbox(self.request)
        try:
            with frames.watched(self.request, self.server.idle_timeout_s) as deadline:
                while True:
                    payload = inbox.frame()
                    frames.send_within(self.request, HEADER.pack(len(payload)) + payload, self.server.idle_timeout_s)
                    deadline.answered()
        except OSError:  # closed, reset, idle, late, or a frame over the limit
            return


class EchoServer(socketserver.ThreadingTCPServer):
    """The echo server, a thread per connection; `idle_timeout_s` short in tests."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = limits.listen_backlog()  # socketserver's own is 5

    def __init__(self, address: tuple[str, int], idle_timeout_s: float | None = None) -> None:
        self.idle_timeout_s = limits.idle_timeout_s() if idle_timeout_s is None else idle_timeout_s
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

    def user_unsupported(self, method: schema.Method) -> str | None:
        """The floor echoes the same bytes whatever the schema, a message a call (or a stream's, each
        echoed); a one-way stream's call is many messages one way, which an echo does not make."""
        return ONE_WAY_FLOOR if method.one_way else None


ONE_WAY_FLOOR = "the floor echoes each message it gets: a one-way stream has no echo to measure"


class TcpRawClient(Client):
    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        host, _, port = target.rpartition(":")
        self._request_type = schema.message_class(schema.methods()[method].request)
        self._address = (host, int(port))
        self._sock = self._connect()
        self._inbox = Inbox(self._sock)

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self._address, timeout=self.timeout_s)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def reconnect(self) -> None:
        self._sock.close()  # a frame may be half read: the stream cannot be trusted any more
        self._sock = self._connect()
        self._inbox = Inbox(self._sock)

    def prepare(self, request: dict[str, Any]) -> Any:
        payload = message_of(request, self._request_type).SerializeToString()
        return HEADER.pack(len(payload)) + payload

    def expect(self, response: dict[str, Any]) -> Any:
        return None  # the reply must equal what was sent

    def call(self, frame: bytes) -> Any:
        self._sock.sendall(frame)
        return self._inbox.frame(len(frame)), frame  # an echo: the reply is as long as the request

    def same(self, got: Any, want: Any) -> bool:
        reply: bytes
        sent: bytes
        reply, sent = got  # what `call` returns
        return reply == sent[HEADER.size:]

    def close(self) -> None:
        self._sock.close()
