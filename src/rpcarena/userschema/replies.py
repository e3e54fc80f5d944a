"""What a user's method answers: `--reply echo` (default), `--reply-file F.jsonl` or `--reply-size 4KB`.

- echo: the request's own fields, read as the reply type (by field number, as protobuf's wire
  compatibility reads them; fields the reply lacks, or cannot read, are dropped: `echo`). A method
  whose request and reply are the same type answers the request itself; between two types the
  reply is made here and served as a file's would be (`served_mode`), in every language alike.
- file: the k-th reply line answers the k-th request (requests and replies are cycled together).
- size: one reply whose first string or bytes field is filled so the reply encodes to that many bytes.

The expected replies are computed here once, and every client checks each answer against them;
each server answers through `responder`, built from the same choice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, EncodeError, Message

from rpcarena.errors import UsageError
from rpcarena.protocol import semantics
from rpcarena.userschema import echo
from rpcarena.userschema.samples import canonical, message_of

MODES = ("echo", "file", "size")
_TEXT = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def echoed(request: Any, reply_type: type[Message]) -> Any:
    """The reply a request echoes into (`echo`): the request's fields the reply type can read."""
    if type(request) is reply_type:
        return request
    data = echo.kept(request.SerializeToString(), reply_type.DESCRIPTOR, request.DESCRIPTOR)
    reply = reply_type.FromString(data)
    reply.DiscardUnknownFields()
    return reply


def served_mode(mode: str, request_type: type[Message], reply_type: type[Message]) -> str:
    """The mode servers are told: an echo between two types is answered from the replies made here
    (`expected`), as a --reply-file is, so that every language's server answers the same reply."""
    return "file" if mode == "echo" and request_type is not reply_type else mode


def _echo(request: dict[str, Any], request_type: type[Message], reply_type: type[Message]) -> dict[str, Any]:
    """The expected echo of one request, or one line naming what to give instead."""
    name = reply_type.DESCRIPTOR.full_name
    fix = "give --reply-file F.jsonl (one reply a request) or --reply-size 4KB"
    try:
        reply = echoed(message_of(request, request_type), reply_type)
        if not reply.IsInitialized():
            missing = ", ".join(reply.FindInitializationErrors())
            raise UsageError(f"--reply echo: the request's fields make no valid {name} (missing its required "
                             f"{missing}); {fix}")
        return canonical(reply)
    except (DecodeError, EncodeError, json_format.Error) as error:
        raise UsageError(f"--reply echo: the request's fields make no valid {name} ({error}); {fix}") from None


def sized(reply_type: type[Message], size: int) -> dict[str, Any]:
    """A reply of `size` encoded bytes (`--reply-size`), its first string or bytes field filled."""
    descriptor = reply_type.DESCRIPTOR
    field = next((f for f in descriptor.fields if f.type in _TEXT and f.containing_oneof is None), None)
    if field is None:
        raise UsageError(f"--reply-size needs a string or bytes field in {descriptor.full_name} to fill: "
                         "give --reply-file or --reply echo")
    length = size
    for _ in range(3):  # the length prefix shrinks as the content does: settle in a step or two
        reply = _with_text(reply_type, field, length)
        length = max(0, length - (reply.ByteSize() - size))
    reply = _with_text(reply_type, field, length)
    if reply.ByteSize() != size:
        raise UsageError(f"--reply-size {size}B: the smallest {descriptor.full_name} with {field.name} is "
                         f"{_with_text(reply_type, field, 0).ByteSize()}B; ask for more")
    return canonical(reply)


def _with_text(reply_type: type[Message], field: Any, length: int) -> Any:
    value: Any = b"r" * length if field.type == FieldDescriptor.TYPE_BYTES else "r" * length
    reply = reply_type()
    if field.is_repeated:
        getattr(reply, field.name).append(value)
    else:
        setattr(reply, field.name, value)
    return reply


def expected(mode: str, requests: list[dict[str, Any]], request_type: type[Message], reply_type: type[Message],
             replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request's expected reply, in order; `replies` are the file's or the sized one."""
    if mode == "echo":
        return [_echo(r, request_type, reply_type) for r in requests]
    if mode == "size":
        return [replies[0]] * len(requests)
    if len(replies) != len(requests):
        raise UsageError(f"--reply-file has {len(replies)} replies for {len(requests)} requests: "
                         "give one reply a request, in the same order")
    return replies


def responder(mode: str, pairs: list[list[dict[str, Any]]], request_type: type[Message],
              reply_type: type[Message]) -> Callable[[Any], Any]:
    """request message -> reply message, as a server answers (`pairs`: [request, reply] in order)."""
    if mode == "echo":
        return lambda request: echoed(request, reply_type)
    table = {_key(message_of(q, request_type)): message_of(r, reply_type)
             for q, r in pairs}
    if mode == "size":
        reply = next(iter(table.values()))
        return lambda request: reply
    return lambda request: _looked_up(table, request)


def _looked_up(table: dict[bytes, Any], request: Any) -> Any:
    """The reply paired with the request; a stranger is refused (an error reply, as every language's
    server answers it), never a crash of the connection."""
    reply = table.get(_key(request))
    if reply is None:
        raise semantics.Refused("a request that is none of the run's samples")
    return reply


def _key(message: Any) -> bytes:
    return bytes(message.SerializeToString(deterministic=True))


def check_answerable(pairs: list[list[dict[str, Any]]], request_type: type[Message]) -> None:
    """--reply-file: two equal requests with different replies leave a server unable to choose."""
    seen: dict[bytes, dict[str, Any]] = {}
    for number, (request, reply) in enumerate(pairs, 1):
        key = _key(message_of(request, request_type))
        if seen.setdefault(key, reply) != reply:
            raise UsageError(f"--reply-file line {number}: its request equals an earlier one with another reply; "
                             "make the requests differ or the replies equal")
