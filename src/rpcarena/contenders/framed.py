"""The call-id frame transport that tagless and proto-frames share, apart from their encodings.

A request frame's kind is the method's index among the unary methods of arena.Arena (so no name
travels); its reply carries the call id and a status (`rpcarena.codec.frames`). The server is
`frames.serve_forever` (a thread per connection, bounded frames, idle timeout); the client keeps
one persistent connection. Sharing this module is what lets hprpc2016 set tagless beside
proto-frames (the same transport, another encoding) and proto-frames beside gRPC (the same
messages, another transport).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, BinaryIO, Generic, Protocol, TypeVar

from rpcarena.codec import frames
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import schema, semantics
from rpcarena.userschema import served
from rpcarena.userschema.served import Served


class Codec(Protocol):
    def encode(self, value: Any, /) -> bytes: ...

    def decode(self, body: bytes, /) -> Any: ...


@cache
def unary_methods() -> tuple[Any, ...]:
    """The unary method descriptors of arena.Arena in declaration order: a frame's kind indexes it."""
    service = schema.pb2().DESCRIPTOR.services_by_name["Arena"]
    return tuple(m for m in service.methods if not (m.client_streaming or m.server_streaming))


# The frame kind of the method of a user's schema (`rpcarena run --proto`): one past any index of arena.Arena's.
USER_KIND = 0xFFFF


def method_index(name: str) -> int:
    if schema.methods()[name].user:
        return USER_KIND
    for i, method in enumerate(unary_methods()):
        if method.name == name:
            return i
    raise KeyError(f"the frames carry no unary method {name!r}")


Table = tuple[tuple[str, Codec, Codec], ...]  # (name, request codec, response codec) per frame kind
C = TypeVar("C", bound=Codec)  # a contender's codec: the client reaches past encode and decode


def handle(kind: int, body: bytes, table: Table, operation: Callable[[str], Callable[[Any], Any]],
           bad: type[Exception], broken: type[Exception]) -> tuple[int, bytes]:
    """One request frame's (status, reply body) through a contender's codecs and operations."""
    if kind >= len(table):
        return frames.UNKNOWN_METHOD, f"no method with index {kind}".encode()
    name, request, response = table[kind]
    return answer(body, request, response, operation(name), bad, broken)


def answer(body: bytes, request: Codec, response: Codec, respond: Callable[[Any], Any],
           bad: type[Exception], broken: type[Exception]) -> tuple[int, bytes]:
    """One request body's (status, reply body); a request the codec cannot read (`bad`) or the
    operation refuses is a bad request, a reply it cannot write (`broken`) internal: never a crash."""
    try:
        value = request.decode(body)
    except bad as error:
        return frames.BAD_REQUEST, str(error).encode()
    try:
        return frames.OK, response.encode(respond(value))
    except semantics.Refused as refusal:
        return frames.BAD_REQUEST, str(refusal).encode()
    except (broken, ValueError, TypeError, OverflowError) as error:
        return frames.INTERNAL, str(error).encode()


class FramedContender(PythonContender):
    """A Python server of call-id frames: what differs per contender is its `handler`."""

    def unsupported(self, method: str) -> str | None:
        if schema.methods()[method].streaming:
            return f"{self.id} frames are unary calls; streaming is not implemented"
        return super().unsupported(method)

    def handler(self) -> frames.Handler:
        """(kind, body) -> (status, reply body), its codecs built before the first call."""
        raise NotImplementedError

    def user_handler(self, user: Served) -> tuple[Codec, Codec, Callable[[Any], Any]]:
        """(request codec, reply codec, request value -> reply value) of the user's method."""
        raise NotImplementedError(f"{self.id} does not serve a user's schema")

    def _handler(self, services: Mapping[str, str]) -> frames.Handler:
        """`handler`, answering frames of `USER_KIND` too when the run serves a user's method."""
        handle, user = self.handler(), served.of(services)
        if user is None:
            return handle
        request, response, respond = self.user_handler(user)

        def both(kind: int, body: bytes) -> tuple[int, bytes]:
            if kind != USER_KIND:
                return handle(kind, body)
            return answer(body, request, response, respond, ValueError, ValueError)
        return both

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            listener = frames.listen(host, port)
        except OSError as error:
            raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
        handle = self._handler(services)
        announce_ready(listener.getsockname()[1])
        threading.Thread(target=frames.serve_forever, args=(listener, handle), daemon=True).start()
        threading.Event().wait()


class FramedClient(Client, Generic[C]):
    """One persistent connection of call-id frames; reconnects before the next call after a failure.
    A subclass names its codecs' `table`."""

    table: Callable[[], tuple[tuple[str, C, C], ...]]
    user_codecs: Callable[[str], tuple[C, C]]  # the request and reply codecs of a user's method
    _reader: BinaryIO  # the read side of `_sock`, set with it

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        self.index = method_index(method)
        if self.index == USER_KIND:
            self.request, self.response = self.user_codecs(method)
        else:
            _, self.request, self.response = self.table()[self.index]
        self._sock: socket.socket | None = None
        self._next_id = 0
        self._connect()

    def _connect(self) -> socket.socket:
        host, _, port = self.target.rpartition(":")
        self._sock = socket.create_connection((host.strip("[]"), int(port)), timeout=self.timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._reader = frames.buffered_reader(self._sock)
        return self._sock

    def call(self, value: Any) -> Any:
        return self.response.decode(self.exchange(self.request.encode(value)))

    def exchange(self, body: bytes) -> bytes:
        """Send one request frame of this client's method; the body of its OK reply."""
        sock = self._sock if self._sock is not None else self._connect()
        self._next_id = (self._next_id + 1) & 0xFFFFFFFF
        try:
            sock.sendall(frames.pack(self._next_id, self.index, body))
            call_id, status, reply = frames.read_frame(self._reader)
        except OSError:
            self.close()
            raise
        if call_id != self._next_id:
            self.close()
            raise frames.FrameError(f"reply for call {call_id} while waiting for {self._next_id}")
        if status != frames.OK:
            raise frames.RemoteError(status, reply.decode(errors="replace"))
        return reply

    def classify(self, error: BaseException) -> str:
        if isinstance(error, frames.RemoteError):
            return error.kind
        return super().classify(error)

    def close(self) -> None:
        if self._sock is not None:
            self._reader.close()
            self._sock.close()
            self._sock = None
