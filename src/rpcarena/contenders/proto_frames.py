"""proto-frames: protobuf messages (grpc-py's arena_pb2) carried over tagless's call-id frames.

hprpc2016 blames protobuf's tags for gRPC's cost, but tagless differs from gRPC in its
transport too (pipelined frames, no HTTP/2). This contender holds one thing of each fixed:
against tagless only the encoding differs (tags or none; the same frames and connection
handling, `rpcarena.contenders.framed`), against grpc-py only the transport (the same
generated messages, parsed whole, and the same operations).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from rpcarena.codec import frames
from rpcarena.contenders import framed
from rpcarena.contenders.grpc_py import operation_handler
from rpcarena.protocol import schema


class MessageCodec:
    """A generated protobuf message class as a frame codec: every field parsed on decode."""

    def __init__(self, name: str) -> None:
        self.type = schema.message_class(name)

    def encode(self, value: Any) -> bytes:
        encoded: bytes = value.SerializeToString()  # a protobuf message: protobuf ships no annotations
        return encoded

    def decode(self, body: bytes) -> Any:
        return self.type.FromString(body)


@cache
def method_table() -> tuple[tuple[str, MessageCodec, MessageCodec], ...]:
    """(name, request codec, response codec) per unary method, indexed by the frame's kind."""
    return tuple((m.name, MessageCodec(m.input_type.name), MessageCodec(m.output_type.name))
                 for m in framed.unary_methods())


@cache
def operation(name: str) -> Callable[[Any], Any]:
    """request message -> reply message: grpc-py's handler of `name`, an echo for the others."""
    handler = operation_handler(name)
    if handler is None:
        return _echo
    return lambda request: handler(request, None)


def _echo(value: Any) -> Any:
    return value


def handle(kind: int, body: bytes) -> tuple[int, bytes]:
    """One request frame's (status, reply body); a bad request is an error reply, never a crash."""
    from google.protobuf.message import DecodeError, EncodeError

    return framed.handle(kind, body, method_table(), operation, DecodeError, EncodeError)


class ProtoFrames(framed.FramedContender):
    id = "proto-frames"
    protocol = "proto-frames"
    description = "protobuf messages (arena_pb2, as grpc-py) over tagless's call-id frames: tags without HTTP/2"
    python_modules = ("google.protobuf",)

    def handler(self) -> frames.Handler:
        for name, _, _ in method_table():  # build every codec and operation before the first call
            operation(name)
        return handle


class ProtoFramesClient(framed.FramedClient[MessageCodec]):
    """Requests are generated messages made before the measured phase, as grpc-py's client holds them."""

    table = staticmethod(method_table)

    def prepare(self, request: dict[str, Any]) -> Any:
        from google.protobuf import json_format

        return json_format.ParseDict(request, self.request.type())

    def expect(self, response: dict[str, Any]) -> Any:
        from google.protobuf import json_format

        return json_format.ParseDict(response, self.response.type())

    def canonical(self, value: Any) -> Any:
        from google.protobuf import json_format

        return json_format.MessageToDict(value, preserving_proto_field_name=True)

    def classify(self, error: BaseException) -> str:
        from google.protobuf.message import DecodeError

        if isinstance(error, DecodeError):
            return "other"
        return super().classify(error)
