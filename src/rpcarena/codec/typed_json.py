"""Typed JSON (MML's idea, infobip2016): every object carries its type name.

Beyond MML's numbers, strings, booleans and typed objects, a user's schema may hold bytes (a base64
string, as proto JSON and most JSON APIs write them), enums (their numbers) and maps (JSON objects).

`{"@type": "arena.Person", "name": "Ada", "age": 36, "weight": 55.5}`: the
reader knows what it holds before it reads a field, and checks it. Encoders and
validating decoders are built from the canonical schema's descriptor. A decoder
accepts only a JSON object of the expected type whose fields all exist and fit
their declared type (int32 range, bool is not a number, ...). Anything else is a DecodeError.

An arena message's missing field is its default (the decoder fills it in). A user's message keeps
what was sent and nothing more: a field is there when the object has it, so an absent submessage or
`optional` field stays absent and one set to its default stays set, as the user's schema says they
differ. The well-known types (Timestamp, Struct, wrappers, Any, ...) are carried in their proto JSON
forms (a Timestamp is a string, a Struct any object), checked by protobuf's own reader; a group is an
object like any message; floats may be proto JSON's "NaN", "Infinity" and "-Infinity".
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from rpcarena.codec import proto_json
from rpcarena.protocol import schema

TYPE = "@type"
_FD = FieldDescriptor
_RANGES = {_FD.TYPE_INT32: (-(1 << 31), 1 << 31), _FD.TYPE_SINT32: (-(1 << 31), 1 << 31),
           _FD.TYPE_SFIXED32: (-(1 << 31), 1 << 31), _FD.TYPE_ENUM: (-(1 << 31), 1 << 31),
           _FD.TYPE_UINT32: (0, 1 << 32), _FD.TYPE_FIXED32: (0, 1 << 32),
           _FD.TYPE_INT64: (-(1 << 63), 1 << 63), _FD.TYPE_SINT64: (-(1 << 63), 1 << 63),
           _FD.TYPE_SFIXED64: (-(1 << 63), 1 << 63),
           _FD.TYPE_UINT64: (0, 1 << 64), _FD.TYPE_FIXED64: (0, 1 << 64)}
_FLOATS = (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT)
_MESSAGES = (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP)
_WELL_KNOWN = "google.protobuf."
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


class DecodeError(ValueError):
    """Bytes that are not typed JSON of the expected message (reject the call)."""


def descriptor(name: str) -> Descriptor:
    """A message of the canonical schema by short ('Person') or full ('arena.Person') name, or of the
    user's schema by full name."""
    return schema.user_message(name) or schema.pb2().DESCRIPTOR.message_types_by_name[name.rpartition(".")[2]]


def to_typed(message: Descriptor, data: dict[str, Any]) -> dict[str, Any]:
    """A canonical dict as a typed object: '@type' first, nested messages typed too (a map's
    values when they are messages)."""
    out: dict[str, Any] = {TYPE: message.full_name}
    for field in _nested_fields(message):
        value = data.get(field.name)
        if value is None:
            continue
        if _is_map(field):
            kind = field.message_type.fields_by_name["value"].message_type
            out[field.name] = {k: to_typed(kind, v) for k, v in value.items()}
        elif field.is_repeated:
            out[field.name] = [to_typed(field.message_type, v) for v in value]
        else:
            out[field.name] = to_typed(field.message_type, value)
    for key, value in data.items():
        out.setdefault(key, value)
    return out


@cache
def _nested_fields(message: Descriptor) -> tuple[FieldDescriptor, ...]:
    """The fields holding typed objects: nested messages and groups, and maps whose values are
    messages (the well-known types keep their own JSON forms)."""
    return tuple(f for f in message.fields if _typed(f) and (
        not _is_map(f) or _typed(f.message_type.fields_by_name["value"])))


def _typed(field: FieldDescriptor) -> bool:
    """Whether a field's value is a typed object: a message or group not of the well-known types."""
    return field.type in _MESSAGES and not field.message_type.full_name.startswith(_WELL_KNOWN)


def _is_map(field: FieldDescriptor) -> bool:
    if field.type != _FD.TYPE_MESSAGE:
        return False
    map_entry: bool = field.message_type.GetOptions().map_entry  # protobuf's options are untyped
    return map_entry


def dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), allow_nan=True).encode()


def loads(body: bytes) -> Any:
    """JSON from the network; DecodeError for anything json would raise on (depth included)."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise DecodeError(f"not JSON ({str(error)[:80]})") from None


def from_typed(message: Descriptor, obj: Any) -> dict[str, Any]:
    """The canonical dict of a typed object: for an arena message every field present but a oneof's
    unset members, for a user's message the fields the object has; DecodeError if it does not fit."""
    if not isinstance(obj, dict):
        raise DecodeError(f"{message.full_name} must be a JSON object, got {type(obj).__name__}")
    if obj.get(TYPE) != message.full_name:
        raise DecodeError(f"expected @type {message.full_name!r}, got {str(obj.get(TYPE))[:80]!r}")
    fields = _fields(message)
    if len(obj) > len(fields) + 1 or any(key not in fields for key in obj if key != TYPE):
        bad = next((k for k in obj if k != TYPE and k not in fields), "?")
        raise DecodeError(f"{message.full_name} has no field {bad[:80]!r}")
    keeps_presence = _is_users(message)
    out = {}
    for name, (field, plain_int32, in_oneof) in fields.items():
        value = obj.get(name)
        if plain_int32 and type(value) is int and -(1 << 31) <= value < (1 << 31):
            out[name] = value  # the LargeData case, checked without the general path
        elif name in obj if keeps_presence else value is not None or not in_oneof:
            out[name] = _field(field, value)  # an arena oneof's members but the one set stay absent
    return out


def _is_users(message: Descriptor) -> bool:
    """Whether a message is of the user's schema (it keeps presence) rather than of arena.proto."""
    return message.file.pool is schema.user_pool()


@cache
def _fields(message: Descriptor) -> dict[str, tuple[FieldDescriptor, bool, bool]]:
    """(field, is a plain int32, is a oneof's member) by name in schema order: descriptor lookups
    are slow when hot."""
    return {f.name: (f, f.type == _FD.TYPE_INT32 and not f.is_repeated and f.containing_oneof is None,
                     f.containing_oneof is not None) for f in message.fields}


def _field(field: FieldDescriptor, value: Any) -> Any:
    if _is_map(field):
        return _map(field, value)
    if not field.is_repeated:
        return _single(field, value)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DecodeError(f"{field.full_name} must be a JSON array")
    return [_single(field, v) for v in value]


def _map(field: FieldDescriptor, value: Any) -> dict[str, Any]:
    """A map is a JSON object, its keys strings (as proto JSON writes every key), its values checked
    as the entry's value field."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DecodeError(f"{field.full_name} must be a JSON object")
    entry = field.message_type.fields_by_name["value"]
    return {key: _single(entry, item) for key, item in value.items()}


def _single(field: FieldDescriptor, value: Any) -> Any:
    if field.type in _MESSAGES and not _typed(field):
        return _well_known(field, value)
    if field.type in _MESSAGES:
        if value is None:
            return from_typed(field.message_type, {TYPE: field.message_type.full_name})
        return from_typed(field.message_type, value)
    if value is None:
        return "" if field.type == _FD.TYPE_BYTES else field.default_value  # bytes: as base64, as given
    if field.type in _RANGES:
        low, high = _RANGES[field.type]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value < high:
            raise DecodeError(f"{field.full_name} must be an integer in [{low}, {high})")
    elif field.type in _FLOATS:
        if isinstance(value, str) and value in proto_json.WORDS:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DecodeError(f"{field.full_name} must be a number")
        value = float(value)
    elif field.type == _FD.TYPE_BOOL:
        if not isinstance(value, bool):
            raise DecodeError(f"{field.full_name} must be true or false")
    elif field.type == _FD.TYPE_STRING:
        if not isinstance(value, str):
            raise DecodeError(f"{field.full_name} must be a string")
    elif field.type == _FD.TYPE_BYTES:  # as proto JSON writes bytes, and as JSON APIs commonly do
        if not isinstance(value, str) or not _BASE64.fullmatch(value):
            raise DecodeError(f"{field.full_name} must be a base64 string")
    else:
        raise DecodeError(f"{field.full_name} has a type typed JSON does not carry")
    return value


def _well_known(field: FieldDescriptor, value: Any) -> Any:
    """A well-known type's value in its proto JSON form, as given, once protobuf's reader accepts it."""
    try:
        json_format.ParseDict({field.name: [value] if field.is_repeated else value}, _holder(field.containing_type)(),
                              descriptor_pool=schema.user_pool())
    except (json_format.ParseError, ValueError, TypeError, AttributeError) as error:
        raise DecodeError(f"{field.full_name}: {str(error)[:120]}") from None
    return value


@cache
def _holder(message: Descriptor) -> Any:
    return message_factory.GetMessageClass(message)


def encode(message: Descriptor, data: dict[str, Any]) -> bytes:
    return dumps(to_typed(message, data))


def decode(message: Descriptor, body: bytes) -> dict[str, Any]:
    return from_typed(message, loads(body))
