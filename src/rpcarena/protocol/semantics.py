"""What each operation of proto/arena.proto computes: the reference semantics.

Every server, in every language, must answer exactly as these functions do; the
shared test vectors (proto/vectors/arena.json) are produced from them. Every
Python server's adapter reads `OPERATIONS`, with its own values, so the logic
lives here once. Echo operations (EchoInt32, EchoLargeData8192, ...) return their
argument unchanged and have no row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from rpcarena.protocol import schema

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
UINT32 = 1 << 32
# The cap on GetRandNums' count and on any count a peer announces, the same in every language
# (Go internal/arena, Rust src/logic.rs, Java semantics/): at 2^31 values one call would cost
# 8 GiB. A request over it is refused, naming the cap.
MAX_COUNT = 1_000_000


class Refused(Exception):
    """A request the operation will not run (a count over MAX_COUNT): the caller's error, answered
    as gRPC INVALID_ARGUMENT, HTTP 400 or the protocol's own error reply, never a crash."""


def check_count(what: str, count: int) -> None:
    """Refuse a count over MAX_COUNT before anything is allocated for it."""
    if count > MAX_COUNT:
        raise Refused(f"{what} {count} is over the cap of {MAX_COUNT}: ask for fewer")


def say_hello(name: str) -> str:
    return "Hello " + name


def average(values: Sequence[int]) -> float:
    """The mean as double(sum as int64) / count, and 0.0 for no values."""
    if not values:
        return 0.0
    return float(sum(values)) / len(values)


def rand_nums(count: int, seed: int) -> list[int]:
    """Numerical Recipes' LCG over uint32, each state read as a signed int32; Refused over MAX_COUNT."""
    check_count("GetRandNums count", count)
    state = seed % UINT32
    values = []
    for _ in range(count):
        state = (state * LCG_MULTIPLIER + LCG_INCREMENT) % UINT32
        values.append(state - UINT32 if state >= 1 << 31 else state)
    return values


def invert(word: str) -> str:
    """Reverse by Unicode code points ("Speed" -> "deepS")."""
    return word[::-1]


def checksum(*values: int) -> int:
    """The sum of every field as an int32 that wraps (two's complement), as Go, Rust and Java add
    int32. A reply computed from every value makes a lazy codec (one that holds the wire form and
    decodes a field when it is read) do the same work as an eager one (hprpc2016's LargeData)."""
    total = sum(values) % UINT32
    return total - UINT32 if total >= 1 << 31 else total


# The LargeData sizes with a Checksum rpc (hprpc2016 judges 128 and 8192 fields): the one list,
# read by tools/gen_largedata.py, which writes their rpcs into proto/arena.proto.
CHECKSUM_SIZES = (128, 8192)


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Euclidean distance, summed left to right as dx*dx + dy*dy + dz*dz."""
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@dataclass(frozen=True)
class Operation:
    """What one operation computes on plain values: its request fields, in order, are the
    arguments (a nested message such as Vector3 arrives as the tuple of its fields), and the
    result is its reply's one field (`reply`), or an empty reply (None)."""

    compute: Callable[..., Any]
    arguments: tuple[str, ...]
    reply: str | None


# The one table of Python semantics: every Python server's adapter reads it (a new operation is
# one row here plus the proto). An operation with no row is an echo (Echo*: the request comes back).
OPERATIONS: dict[str, Operation] = {
    "Void": Operation(lambda: None, (), None),
    "Distance": Operation(distance, ("a", "b"), "value"),
    "SayHello": Operation(say_hello, ("name",), "message"),
    "Average": Operation(average, ("values",), "value"),
    "GetRandNums": Operation(rand_nums, ("count", "seed"), "values"),
    "Invert": Operation(invert, ("value",), "value"),
} | {
    f"ChecksumLargeData{n}": Operation(checksum, tuple(f"f{i}" for i in range(1, n + 1)), "value")
    for n in CHECKSUM_SIZES
}
# Streams: each message on the stream is answered as this unary operation answers it.
STREAMS = {"InvertStream": "Invert"}


def operation(method: str) -> Operation | None:
    """The operation of `method` (a stream: of each of its messages); None for an echo."""
    return OPERATIONS.get(STREAMS.get(method, method))


def attribute_reader(method: str) -> Callable[[Any], list[Any]]:
    """How an adapter whose requests have one attribute per field (a protobuf message, a Thrift
    struct, a pydantic model) reads the operation's arguments: nested messages as tuples, an
    unset list (Thrift's None) as an empty one. Built once per method, before any call."""
    op = operation(method)
    request = schema.descriptor(schema.methods()[method].request)
    readers = [_attribute(request.fields_by_name[name]) for name in (op.arguments if op else ())]
    return lambda message: [read(message) for read in readers]


def _attribute(field: Any) -> Callable[[Any], Any]:
    name = field.name
    if field.message_type is not None and not _repeated(field):
        parts = tuple(f.name for f in field.message_type.fields)
        return lambda message: tuple(getattr(getattr(message, name), part) for part in parts)
    if _repeated(field):
        return lambda message: getattr(message, name) or []
    return lambda message: getattr(message, name)


def _repeated(field: Any) -> bool:
    return bool(field.is_repeated)


def _from_dict(request: dict[str, Any], field: Any) -> Any:
    """A canonical (proto JSON) request's argument: a missing field is its default."""
    value = request.get(field.name)
    if field.message_type is not None and not _repeated(field):
        value = value or {}
        return tuple(value.get(f.name, f.default_value) for f in field.message_type.fields)
    if value is None:
        return [] if _repeated(field) else field.default_value
    return value


def respond(method: str, request: dict[str, Any]) -> dict[str, Any]:
    """The canonical (proto-JSON, proto field names) response to a canonical request."""
    op = operation(method)
    if op is None:
        if method.startswith("Echo"):
            return request
        raise KeyError(f"no reference semantics for method {method!r}")
    result = op.compute(*[_from_dict(request, field) for field in _argument_fields(method)])
    return {} if op.reply is None else {op.reply: result}


@cache
def _argument_fields(method: str) -> tuple[Any, ...]:
    op = operation(method)
    fields = schema.descriptor(schema.methods()[method].request).fields_by_name
    return tuple(fields[name] for name in (op.arguments if op else ()))
