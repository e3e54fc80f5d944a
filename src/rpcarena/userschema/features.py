"""Which features of a user's schema a mechanism cannot express: the reason its cell is "unsupported".

A mechanism names the kinds it lacks (the keys of `NAMES`); `first_of`
walks the method's messages and names the first field of such a kind, so the cell says exactly
what in the user's schema stopped it, never a silent difference.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from rpcarena.protocol import schema

# Each kind as a sentence names it.
NAMES = {"bytes": "a bytes field", "map": "a map", "oneof": "a oneof", "enum": "an enum",
         "recursion": "a message that contains itself", "uint64": "an unsigned 64-bit integer",
         "nested": "a message declared inside another"}


def why(method: schema.Method, lacks: dict[str, str]) -> str | None:
    """"orders.Cart.blob is a bytes field: <the mechanism's reason>" for the first feature of the
    method the mechanism lacks (`lacks`: kind -> its reason), or None."""
    found = first_of(method, set(lacks))
    return f"{found[1]} is {NAMES[found[0]]}: {lacks[found[0]]}" if found else None


def first_of(method: schema.Method, kinds: set[str]) -> tuple[str, str] | None:
    """(the kind, where: a field's or message's full name) of the first feature of `kinds` in the
    method's request or reply, or None."""
    for name in (method.request, method.response):
        found = _walk(schema.descriptor(name), kinds, frozenset())
        if found:
            return found
    return None


def _walk(message: Any, kinds: set[str], seen: frozenset[str]) -> tuple[str, str] | None:
    if message.full_name in seen:
        return ("recursion", message.full_name) if "recursion" in kinds else None
    if message.oneofs and "oneof" in kinds:
        return "oneof", message.oneofs[0].full_name
    if message.containing_type is not None and "nested" in kinds:
        return "nested", message.full_name
    for field in message.fields:
        kind = _kind(field)
        if kind in kinds:
            return kind, field.full_name
        if field.type == FieldDescriptor.TYPE_MESSAGE and kind != "map":
            found = _walk(field.message_type, kinds, seen | {message.full_name})
            if found:
                return found
    return None


def _kind(field: Any) -> str | None:
    if field.type == FieldDescriptor.TYPE_BYTES:
        return "bytes"
    if field.type == FieldDescriptor.TYPE_ENUM:
        return "enum"
    if field.type in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return "uint64"
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
        return "map"
    return None
