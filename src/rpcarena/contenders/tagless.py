"""tagless: HPRPC's idea in Python; schema-ordered fields with no tags, in call-id frames.

The codec is generated from the descriptor (`rpcarena.codec.tagless`); the wire
is `rpcarena.codec.frames` over one persistent TCP connection per client. The
request frame's kind is the method's index in the service, so no name travels.
Values are tuples in schema order, flat messages held in their wire form (see
the codec): the client turns the canonical dicts into them before the measured
phase, as an HPRPC user would hold them.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from rpcarena.codec import frames
from rpcarena.codec.tagless import DecodeError, EncodeError, MessageCodec, codec, from_dict, plain
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import replies, schema, semantics


@cache
def operation(name: str) -> Callable[[tuple], tuple]:
    """request tuple -> reply tuple for `name`, from the semantics table; an echo for the others.
    A tagless request is its fields' values in declaration order, so arguments are read by place."""
    op = semantics.operation(name)
    if op is None:
        return _echo
    fields = [f.name for f in schema.descriptor(schema.methods()[name].request).fields]
    places, compute, field = [fields.index(a) for a in op.arguments], op.compute, op.reply

    def respond(value: tuple) -> tuple:
        result = compute(*[value[i] for i in places])
        if field is None:
            return ()
        return (tuple(result) if isinstance(result, list) else result,)
    return respond


@cache
def method_table() -> tuple[tuple[str, MessageCodec, MessageCodec], ...]:
    """(name, request codec, response codec) per unary method, indexed by the frame's kind."""
    service = schema.pb2().DESCRIPTOR.services_by_name["Arena"]
    return tuple((m.name, codec(m.input_type.full_name), codec(m.output_type.full_name))
                 for m in service.methods if not (m.client_streaming or m.server_streaming))


def method_index(name: str) -> int:
    for i, (method, _, _) in enumerate(method_table()):
        if method == name:
            return i
    raise KeyError(f"tagless has no unary method {name!r}")


def handle(kind: int, body: bytes) -> tuple[int, bytes]:
    """One request frame's (status, reply body); a bad request is an error reply, never a crash."""
    table = method_table()
    if kind >= len(table):
        return frames.UNKNOWN_METHOD, f"no method with index {kind}".encode()
    name, request, response = table[kind]
    try:
        value = request.decode(body)
    except DecodeError as error:
        return frames.BAD_REQUEST, str(error).encode()
    try:
        return frames.OK, response.encode(operation(name)(value))
    except semantics.Refused as refusal:
        return frames.BAD_REQUEST, str(refusal).encode()
    except (EncodeError, ValueError, TypeError, OverflowError) as error:
        return frames.INTERNAL, str(error).encode()


def _echo(value: tuple) -> tuple:
    return value


class Tagless(PythonContender):
    id = "tagless"
    protocol = "tagless"
    description = "schema-ordered fields, no tags (HPRPC); generated struct codec, call-id frames"

    def unsupported(self, method: str) -> str | None:
        if schema.methods()[method].streaming:
            return "tagless frames are unary calls; streaming is not implemented"
        return super().unsupported(method)

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            listener = frames.listen(host, port)
        except OSError as error:
            raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
        method_table()  # build every codec before the first call
        announce_ready(listener.getsockname()[1])
        threading.Thread(target=frames.serve_forever, args=(listener, handle), daemon=True).start()
        threading.Event().wait()


class TaglessClient(Client):
    """One persistent connection; reconnects before the next call after a failure."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        self._index = method_index(method)
        _, self._request, self._response = method_table()[self._index]
        self._sock: socket.socket | None = None
        self._reader: Any = None
        self._next_id = 0
        self._connect()

    def _connect(self) -> None:
        host, _, port = self.target.rpartition(":")
        self._sock = socket.create_connection((host.strip("[]"), int(port)), timeout=self.timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._reader = self._sock.makefile("rb", buffering=1 << 16)

    def prepare(self, request: dict) -> Any:
        return self._request.hold(from_dict(self._request.descriptor, request))

    def expect(self, response: dict) -> Any:
        return self._response.hold(from_dict(self._response.descriptor, response))

    def call(self, value: tuple) -> tuple:
        if self._sock is None:
            self._connect()
        self._next_id = (self._next_id + 1) & 0xFFFFFFFF
        try:
            self._sock.sendall(frames.pack(self._next_id, self._index, self._request.encode(value)))
            call_id, status, body = frames.read_frame(self._reader)
        except OSError:
            self.close()
            raise
        if call_id != self._next_id:
            self.close()
            raise frames.FrameError(f"reply for call {call_id} while waiting for {self._next_id}")
        if status != frames.OK:
            raise frames.RemoteError(status, body.decode(errors="replace"))
        return self._response.decode(body)

    def same(self, got: Any, want: Any) -> bool:
        return got == want or replies.equivalent(plain(got), plain(want))

    def classify(self, error: BaseException) -> str:
        if isinstance(error, frames.RemoteError):
            return error.kind
        if isinstance(error, DecodeError):
            return "other"
        return super().classify(error)

    def close(self) -> None:
        if self._sock is not None:
            self._reader.close()
            self._sock.close()
            self._sock = None
