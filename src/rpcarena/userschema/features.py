"""Which features of a user's schema a mechanism cannot express: the reason its cell is "unsupported".

A mechanism names the kinds it lacks (the keys of `NAMES`); `first_of` walks the method's messages
(their fields, map values, groups and extensions), then the run's samples for the kinds of values
(`values`), and names the first field or message of such a kind, so the cell says exactly what in
the user's schema stopped it, never a silent difference. docs/schemas.md shows which mechanism
lacks which kind, measured.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FieldDescriptor

from rpcarena.protocol import schema
from rpcarena.userschema import values

_FD = FieldDescriptor
# Each kind as a sentence names it.
NAMES = {"bytes": "a bytes field", "map": "a map", "map_bool_key": "a map keyed by bool",
         "map_64bit_key": "a map keyed by a 64-bit integer", "oneof": "a oneof", "enum": "an enum",
         "recursion": "a message that contains itself", "uint64": "an unsigned 64-bit integer",
         "nested": "a message declared inside another",
         "submessage": "a message field, which may be absent (and absent is not empty)",
         "optional": "a field with explicit presence (proto3 `optional`, proto2 `optional`): set to its default "
                     "is not unset",
         "required": "a proto2 `required` field",
         "group": "a group (proto2, or a delimited message)",
         "extension": "an extension",
         "file_extension_group": "an extension declared at file level that is a group (or a delimited message)",
         "well_known": "a well-known type (google.protobuf.*: Timestamp, Duration, Struct, wrappers, Any, ...)",
         "group_like": "a group named after its type (proto2's, or a delimited field written like one)",
         "editions": 'a file of protobuf editions (edition = "2023")',
         "edition_2024": 'a file of protobuf edition 2024 or later (edition = "2024")',
         **values.NAMES}  # and the kinds of a sample's values
# A kind of editions -> the first edition it names (a toolchain reads the editions before it).
_EDITIONS = {"editions": descriptor_pb2.EDITION_2023, "edition_2024": descriptor_pb2.EDITION_2024}
_WELL_KNOWN = "google.protobuf."
_WIDE_UNSIGNED = (_FD.TYPE_UINT64, _FD.TYPE_FIXED64)


def why(method: schema.Method, lacks: dict[str, str], role: str = "server") -> str | None:
    """"orders.Cart.blob is a bytes field: <the mechanism's reason>" for the first feature of the
    method the mechanism lacks (`lacks`: kind -> its reason) as a server or a client (`role`: which
    of the samples' values matter to it), or None."""
    found = first_of(method, set(lacks), role)
    return f"{found[1]} is {NAMES[found[0]]}: {lacks[found[0]]}" if found else None


def first_of(method: schema.Method, kinds: set[str], role: str = "server") -> tuple[str, str] | None:
    """(the kind, where: a field's or message's full name) of the first feature of `kinds` in the
    method's request or reply (for "editions": of the schema's files; for a value's kind: of the
    run's samples), or None."""
    for kind, edition in _EDITIONS.items():
        if kind in kinds and (file := _edition_file(edition)):
            return kind, file
    for name in (method.request, method.response):
        found = _walk(schema.descriptor(name), kinds, frozenset())
        if found:
            return found
    return values.first_of(method, kinds, role)


def _walk(message: Any, kinds: set[str], seen: frozenset[str]) -> tuple[str, str] | None:
    if message.full_name in seen:
        return ("recursion", message.full_name) if "recursion" in kinds else None
    own = _message_kinds(message) & kinds
    if own:
        kind = min(own, key=list(NAMES).index)
        return kind, _where(kind, message)
    for field in (*message.fields, *_extensions(message)):
        found = _field_kinds(field) & kinds
        if found:
            return min(found, key=list(NAMES).index), field.full_name
        inner = _inner(field)
        if inner is not None and not inner.full_name.startswith(_WELL_KNOWN):
            deeper = _walk(inner, kinds, seen | {message.full_name})
            if deeper:
                return deeper
    return None


def _where(kind: str, message: Any) -> str:
    """What a message-wide kind is named by: the oneof, the first extension, or the message."""
    if kind == "oneof":
        return str(real_oneofs(message)[0].full_name)
    if kind == "extension":
        return str(_extensions(message)[0].full_name)
    return str(message.full_name)


def _message_kinds(message: Any) -> set[str]:
    kinds = set()
    if real_oneofs(message):
        kinds.add("oneof")
    if message.containing_type is not None and not message.GetOptions().map_entry:
        kinds.add("nested")
    if _extensions(message):
        kinds.add("extension")
    return kinds


def _field_kinds(field: Any) -> set[str]:
    """Every kind a field is of (an `optional bytes` is both)."""
    kinds = set()
    inner = field.message_type
    if inner is not None and inner.GetOptions().map_entry:
        return {"map", *_map_key_kinds(inner.fields_by_name["key"])}
    if field.type == _FD.TYPE_BYTES:
        kinds.add("bytes")
    if field.type == _FD.TYPE_ENUM:
        kinds.add("well_known" if field.enum_type.full_name.startswith(_WELL_KNOWN) else "enum")
    if field.type in _WIDE_UNSIGNED:
        kinds.add("uint64")
    if field.type == _FD.TYPE_GROUP:
        kinds.add("group")
        if _group_like(field):
            kinds.add("group_like")
        if field.is_extension and field.extension_scope is None:
            kinds.add("file_extension_group")
    if inner is not None and inner.full_name.startswith(_WELL_KNOWN):
        kinds.add("well_known")
    if inner is not None and not field.is_repeated:
        kinds.add("submessage")
    elif field.has_presence and not field.is_repeated and not _in_real_oneof(field):
        kinds.add("optional")
    if field.is_required:
        kinds.add("required")
    return kinds


def _map_key_kinds(key: Any) -> set[str]:
    if key.type == _FD.TYPE_BOOL:
        return {"map_bool_key"}
    return {"map_64bit_key"} if key.cpp_type in (_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64) else set()


def _inner(field: Any) -> Any:
    """The message a field holds (a map's value message), or None."""
    inner = field.message_type
    if inner is not None and inner.GetOptions().map_entry:
        return inner.fields_by_name["value"].message_type
    return inner


def _extensions(message: Any) -> list[Any]:
    """A message's extensions by field number (the pool's own order depends on what was loaded first)."""
    pool = message.file.pool
    return sorted(pool.FindAllExtensions(message), key=lambda e: e.number) if message.extension_ranges else []


def real_oneofs(message: Any) -> list[Any]:
    """A message's oneofs but the synthetic ones protoc makes for proto3 `optional` fields (each of
    one field: presence, not a choice)."""
    return [o for o in message.oneofs if not _synthetic(o)]


def _in_real_oneof(field: Any) -> bool:
    return field.containing_oneof is not None and not _synthetic(field.containing_oneof)


def _synthetic(oneof: Any) -> bool:
    fields = oneof.fields
    return len(fields) == 1 and fields[0].full_name in _proto3_optional(fields[0].file.name, fields[0].file.pool)


@cache
def _file_proto(name: str, pool: Any) -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto()
    pool.FindFileByName(name).CopyToProto(proto)
    return proto


def _edition_file(edition: int) -> str | None:
    """The first file of the user's schema written in protobuf `edition` or a later one, which older
    toolchains cannot read at all (so the whole schema, not one field, is what they lack)."""
    for file in schema.user_files():
        proto = _file_proto(file.name, file.pool)
        if proto.syntax == "editions" and proto.edition >= edition:
            return str(file.name)
    return None


def _group_like(field: Any) -> bool:
    """A proto2 group, or a delimited field written as one: named after its type, declared beside it
    (text formats, and Go's protojson with proto names, then name it by its type: "Meta")."""
    return bool(field.message_type.name.lower() == field.name
                and field.message_type.containing_type == field.containing_type)


@cache
def _proto3_optional(name: str, pool: Any) -> frozenset[str]:
    """The full names of a file's proto3 `optional` fields (what the descriptor proto records)."""
    proto = _file_proto(name, pool)
    found: set[str] = set()

    def visit(prefix: str, messages: Any) -> None:
        for message in messages:
            found.update(f"{prefix}{message.name}.{f.name}" for f in message.field if f.proto3_optional)
            visit(f"{prefix}{message.name}.", message.nested_type)
    visit(f"{proto.package}." if proto.package else "", proto.message_type)
    return frozenset(found)
