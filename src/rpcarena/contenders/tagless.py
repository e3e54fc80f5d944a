"""tagless: HPRPC's idea in Python; schema-ordered fields with no tags, in call-id frames.

The codec is generated from the descriptor (`rpcarena.codec.tagless`); the wire
is the call-id frames of `rpcarena.contenders.framed` over one persistent TCP
connection per client, shared with proto-frames (protobuf over the same frames).
Values are tuples in schema order, flat messages held in their wire form (see
the codec): the client turns the canonical dicts into them before the measured
phase, as an HPRPC user would hold them. An echo decodes every field into a
Python value and encodes it back (`_echo`), as the other servers' echoes do.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from rpcarena.codec import frames
from rpcarena.codec.tagless import DecodeError, EncodeError, MessageCodec, Value, codec, from_dict, plain, to_dict
from rpcarena.contenders import framed
from rpcarena.protocol import replies, schema, semantics
from rpcarena.userschema import features
from rpcarena.userschema.served import Served


@cache
def operation(name: str) -> Callable[[Value], Value]:
    """request tuple -> reply tuple for `name`, from the semantics table; an echo for the others.
    A tagless request is its fields' values in declaration order, so arguments are read by place."""
    op = semantics.operation(name)
    if op is None:
        return _echo
    fields = [f.name for f in schema.descriptor(schema.methods()[name].request).fields]
    places, compute, field = [fields.index(a) for a in op.arguments], op.compute, op.reply

    def respond(value: Value) -> Value:
        result = compute(*[value[i] for i in places])
        if field is None:
            return ()
        return (tuple(result) if isinstance(result, list) else result,)
    return respond


@cache
def method_table() -> tuple[tuple[str, MessageCodec, MessageCodec], ...]:
    """(name, request codec, response codec) per unary method, indexed by the frame's kind."""
    return tuple((m.name, codec(m.input_type.full_name), codec(m.output_type.full_name))
                 for m in framed.unary_methods())


method_index = framed.method_index


def handle(kind: int, body: bytes) -> tuple[int, bytes]:
    """One request frame's (status, reply body); a bad request is an error reply, never a crash."""
    return framed.handle(kind, body, method_table(), operation, DecodeError, EncodeError)


def _echo(value: Any) -> Any:
    """The request back, every field decoded into a Python value and encoded again, as every other server
    echoes (hprpc2016's servers "send the same data back"): a flat message held in its wire form is made
    Python numbers here, not returned as the bytes it came in, which would read no field at all."""
    return plain(value)


class Tagless(framed.FramedContender):
    id = "tagless"
    protocol = "tagless"
    description = "schema-ordered fields, no tags (HPRPC); generated struct codec, call-id frames"

    def handler(self) -> frames.Handler:
        method_table()  # build every codec before the first call
        return handle

    def user_unsupported(self, method: schema.Method) -> str | None:
        return features.why(method, _LACKS)

    def user_handler(self, user: Served) -> tuple[MessageCodec, MessageCodec, Callable[[Any], Any]]:
        request, response = codec(user.method.request), codec(user.method.response)
        answer = user.answer_canonical

        def respond(value: Value) -> Any:
            return response.hold(from_dict(response.descriptor, answer(to_dict(request.descriptor, value))))
        return request, response, respond


# What tagless cannot carry of a user's schema, and why (`userschema.features`): it puts every field
# on the wire, in schema order, so whatever a field's absence or choice means has no form.
_LACKS = {"oneof": "tagless puts every field on the wire: a oneof has no form",
          "map": "tagless has no map encoding (HPRPC's fields are fixed): use a repeated message",
          "recursion": "tagless values are tuples of a fixed depth",
          "submessage": "tagless puts every field on the wire: an absent message has no form",
          "optional": "tagless puts every field on the wire: an unset field has no form",
          "group": "tagless nests messages by position; a group's tags have no form",
          "extension": "tagless fields are the message's own, in schema order; an extension has no position",
          "well_known": "tagless carries a message's fields; a well-known type is read from its own JSON form "
                        "(a Timestamp is a string), which tagless has no form for"}


def _user_codecs(method: str) -> tuple[MessageCodec, MessageCodec]:
    info = schema.methods()[method]
    return codec(info.request), codec(info.response)


class TaglessClient(framed.FramedClient[MessageCodec]):
    """Values are held as the decoder gives them (flat messages in their wire form)."""

    table = staticmethod(method_table)
    user_codecs = staticmethod(_user_codecs)

    def prepare(self, request: dict[str, Any]) -> Any:
        return self.request.hold(from_dict(self.request.descriptor, request))

    def expect(self, response: dict[str, Any]) -> Any:
        return self.response.hold(from_dict(self.response.descriptor, response))

    def matches(self, got: Any, want: Any) -> bool:
        return got == want or replies.equivalent(plain(got), plain(want))

    def user_reply(self, value: Any) -> Any:
        return to_dict(self.response.descriptor, plain(value))

    def classify(self, error: BaseException) -> str:
        if isinstance(error, DecodeError):
            return "other"
        return super().classify(error)
