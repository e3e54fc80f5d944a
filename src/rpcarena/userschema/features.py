"""Which features of a user's schema a mechanism cannot express: the reason its cell is "unsupported".

A mechanism names the kinds it lacks (the keys of `NAMES`); `first_of`
walks the method's messages and names the first field of such a kind, so the cell says exactly
what in the user's schema stopped it, never a silent difference.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FieldDescriptor

from rpcarena.protocol import schema

# Each kind as a sentence names it.
NAMES = {"bytes": "a bytes field", "map": "a map", "oneof": "a oneof", "enum": "an enum",
         "recursion": "a message that contains itself", "uint64": "an unsigned 64-bit integer",
         "nested": "a message declared inside another", "extension": "an extension",
         "group": "a group (proto2, or a delimited message)",
         "group_like": "a group named after its type (proto2's, or a delimited field written like one)",
         "editions": 'a file of protobuf editions (edition = "2023")',
         "edition_2024": 'a file of protobuf edition 2024 or later (edition = "2024")'}
_MESSAGES = (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_GROUP)
# A kind of editions -> the first edition it names (a toolchain reads the editions before it).
_EDITIONS = {"editions": descriptor_pb2.EDITION_2023, "edition_2024": descriptor_pb2.EDITION_2024}


def why(method: schema.Method, lacks: dict[str, str]) -> str | None:
    """"orders.Cart.blob is a bytes field: <the mechanism's reason>" for the first feature of the
    method the mechanism lacks (`lacks`: kind -> its reason), or None."""
    found = first_of(method, set(lacks))
    return f"{found[1]} is {NAMES[found[0]]}: {lacks[found[0]]}" if found else None


def first_of(method: schema.Method, kinds: set[str]) -> tuple[str, str] | None:
    """(the kind, where: a field's or message's full name) of the first feature of `kinds` in the
    method's request or reply (for "editions": of the schema's files), or None."""
    for kind, edition in _EDITIONS.items():
        if kind in kinds and (file := _edition_file(edition)):
            return kind, file
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
    if "extension" in kinds and (extensions := message.file.pool.FindAllExtensions(message)):
        return "extension", extensions[0].full_name
    for field in message.fields:
        kind = next((k for k in _kinds(field) if k in kinds), None)
        if kind:
            return kind, field.full_name
        if field.type in _MESSAGES and _kind(field) != "map":
            found = _walk(field.message_type, kinds, seen | {message.full_name})
            if found:
                return found
    return None


def _edition_file(edition: int) -> str | None:
    """The first file of the user's schema written in protobuf `edition` or a later one, which older
    toolchains cannot read at all (so the whole schema, not one field, is what they lack)."""
    for file in schema.user_files():
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        if proto.syntax == "editions" and proto.edition >= edition:
            return str(file.name)
    return None


def _kinds(field: Any) -> tuple[str, ...]:
    """Every kind of a field: a group-like one is a group too."""
    kind = _kind(field)
    if kind == "group" and _group_like(field):
        return "group_like", "group"
    return (kind,) if kind else ()


def _group_like(field: Any) -> bool:
    """A proto2 group, or a delimited field written as one: named after its type, declared beside it
    (text formats, and Go's protojson with proto names, then name it by its type: "Meta")."""
    return bool(field.message_type.name.lower() == field.name
                and field.message_type.containing_type == field.containing_type)


def _kind(field: Any) -> str | None:
    if field.type == FieldDescriptor.TYPE_GROUP:
        return "group"
    if field.type == FieldDescriptor.TYPE_BYTES:
        return "bytes"
    if field.type == FieldDescriptor.TYPE_ENUM:
        return "enum"
    if field.type in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return "uint64"
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry:
        return "map"
    return None
