"""Which values of a user's samples a mechanism cannot carry, where the schema allows them.

A schema may be carried whole while some of its values are not: prost writes a float without
presence only when it is not == 0, so a -0.0 leaves as 0 (and its own client, reading both sides
alike, cannot see it); serde_json writes NaN and the infinities as null. A mechanism names such value
kinds in its `user_lacks` as it names a schema's features; `first_of` walks the run's requests and
expected replies (`remember`, by `workload.build`), those that matter to the mechanism's role (a
value written wrong matters in what it writes), and names the first sample and field holding one,
so the cell is unsupported before any call, never an ok over a message smaller than the user's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from rpcarena.protocol import schema

_FD = FieldDescriptor
# Each kind as a sentence names it (after "request 3's pkg.Message.field is").
NAMES = {"negative_zero": "-0.0 in a float without presence (a plain proto3 field, a map's or a wrapper's value)",
         "non_finite": "NaN or an infinity in a float field",
         "null_value": "a google.protobuf.Value set to null in a message field",
         "unknown_enum": "an enum field set to a number its enum does not name (proto3's enums are open)"}
# Where a kind matters, by role: a server writes the replies, and reads the requests off the wire
# and its replies from the samples; a client writes the requests, reads them from the samples, and
# judges the replies (a -0.0 it reads as 0 is one it cannot tell from a lost one). A kind not
# listed for a role matters in every message.
_ONLY_IN = {("server", "negative_zero"): "reply", ("server", "non_finite"): "reply",
            ("client", "non_finite"): "request"}
_FLOATS = (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE)
_VALUE = "google.protobuf.Value"
Messages = Callable[[], Iterator[tuple[str, int, Any]]]
_SAMPLES: dict[str, Messages] = {}
_FOUND: dict[tuple[str, frozenset[str], str], tuple[str, str] | None] = {}  # each mechanism asks each cell


def remember(method: schema.Method, messages: Messages) -> None:
    """The run's messages of a user's `method`: ("request", 3, message) and ("reply", 3, message),
    made when a mechanism's lacks are first asked for (a run of no such mechanism parses nothing)."""
    _SAMPLES[method.path] = messages
    for key in [k for k in _FOUND if k[0] == method.path]:
        del _FOUND[key]


def first_of(method: schema.Method, kinds: set[str], role: str = "server") -> tuple[str, str] | None:
    """(the kind, "request 3's pkg.Message.field") of the first value of `kinds` that matters to a
    mechanism in `role` in the method's samples, or None (None too when no samples were remembered:
    a schema alone holds no value)."""
    wanted = frozenset(kinds & set(NAMES))
    if not wanted or method.path not in _SAMPLES:
        return None
    key = (method.path, wanted, role)
    if key not in _FOUND:
        _FOUND[key] = _first(_named(side, n, message, {k for k in wanted if _ONLY_IN.get((role, k), side) == side})
                             for side, n, message in _SAMPLES[method.path]())
    return _FOUND[key]


def _named(side: str, n: int, message: Any, kinds: set[str]) -> tuple[str, str] | None:
    found = _walk(message, kinds) if kinds else None
    return (found[0], f"{side} {n}'s {found[1]}") if found else None


def _walk(message: Any, kinds: set[str]) -> tuple[str, str] | None:
    for field, value in message.ListFields():
        each = list(value) if field.is_repeated else [value]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            found = _in_map(field, value, kinds)
        elif field.message_type is None:
            found = _in_scalars(field, each, kinds)
        elif field.message_type.full_name == _VALUE and not field.is_repeated \
                and value.WhichOneof("kind") == "null_value" and "null_value" in kinds:
            found = "null_value", field.full_name
        else:
            found = _first(_walk(m, kinds) for m in each)
        if found:
            return found
    return None


def _in_map(field: Any, entries: Any, kinds: set[str]) -> tuple[str, str] | None:
    value_field = field.message_type.fields_by_name["value"]
    if value_field.message_type is None:
        return _in_scalars(value_field, list(entries.values()), kinds, field.full_name)
    return _first(_walk(m, kinds) for m in entries.values())


def _in_scalars(field: Any, values: list[Any], kinds: set[str], where: str = "") -> tuple[str, str] | None:
    """A scalar field's values (a map's: `where` names the map), for the kinds its type can hold."""
    if field.type in _FLOATS:
        return _in_floats(field, values, kinds, where)
    if field.type == _FD.TYPE_ENUM:
        return _in_enums(field, values, kinds, where)
    return None


def _in_floats(field: Any, values: list[float], kinds: set[str], where: str = "") -> tuple[str, str] | None:
    """A float field's values (a map's: `where` names the map): a non-finite one, or a -0.0 where the
    wire has no presence (a map's value, a wrapper's, a plain proto3 field; never a repeated one's)."""
    name = where or field.full_name
    if "non_finite" in kinds and any(not math.isfinite(v) for v in values):
        return "non_finite", name
    implicit = where or (not field.is_repeated and not field.has_presence)
    if "negative_zero" in kinds and implicit and any(v == 0 and math.copysign(1.0, v) < 0 for v in values):
        return "negative_zero", name
    return None


def _in_enums(field: Any, numbers: list[int], kinds: set[str], where: str = "") -> tuple[str, str] | None:
    named = field.enum_type.values_by_number
    if "unknown_enum" in kinds and any(n not in named for n in numbers):
        return "unknown_enum", where or field.full_name
    return None


def _first(found: Iterator[tuple[str, str] | None]) -> tuple[str, str] | None:
    return next((f for f in found if f), None)
