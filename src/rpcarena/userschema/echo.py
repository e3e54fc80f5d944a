"""`--reply echo` between two message types: the request's fields that the reply type can read.

protobuf's wire compatibility reads one message's bytes as another type, field by field, by
number, and a reader then refuses what does not fit: OTLP's ExportTraceServiceRequest read as its
response ended in "String field had bad UTF-8" (its span ids, read as an error message). So the
echo keeps a field of the request only where the reply's field of that number has the same wire
type, a string's bytes are UTF-8, and a message's bytes read as the reply's message (recursively,
each of its fields so kept); everything else is dropped. A well-known type whose JSON is checked
(a Timestamp's range, an Any's type) is kept only from a field of its own type.

The reply is made once, here (`replies.expected`), and every server answers with it, whatever its
language (`replies.served_mode`), so no language reads the request's bytes its own way.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor, FieldDescriptor

VARINT, I64, LEN, START_GROUP, END_GROUP, I32 = range(6)
_F = FieldDescriptor
WIRE = {_F.TYPE_DOUBLE: I64, _F.TYPE_FLOAT: I32, _F.TYPE_INT64: VARINT, _F.TYPE_UINT64: VARINT,
        _F.TYPE_INT32: VARINT, _F.TYPE_FIXED64: I64, _F.TYPE_FIXED32: I32, _F.TYPE_BOOL: VARINT,
        _F.TYPE_STRING: LEN, _F.TYPE_GROUP: START_GROUP, _F.TYPE_MESSAGE: LEN, _F.TYPE_BYTES: LEN,
        _F.TYPE_UINT32: VARINT, _F.TYPE_ENUM: VARINT, _F.TYPE_SFIXED32: I32, _F.TYPE_SFIXED64: I64,
        _F.TYPE_SINT32: VARINT, _F.TYPE_SINT64: VARINT}
# Their proto JSON checks their values: bytes of another type read as one may not print.
CHECKED_JSON = {f"google.protobuf.{name}" for name in ("Any", "Timestamp", "Duration", "FieldMask", "Struct",
                                                       "Value", "ListValue")}
_MAX_VARINT_BYTES = 10


class NotAMessage(ValueError):
    """Bytes that do not parse as protobuf fields."""


@dataclass(frozen=True)
class Record:
    """One field of an encoded message: its number, wire type, payload and whole encoding."""

    number: int
    wire: int
    payload: bytes
    raw: bytes


def kept(data: bytes, reply: Descriptor, request: Descriptor | None) -> bytes:
    """The fields of `data` (a `request` message's encoding; None: of no known type) that `reply`'s
    fields of the same numbers can read, re-encoded; NotAMessage when `data` is no message."""
    out = bytearray()
    for record in records(data):
        field = reply.fields_by_number.get(record.number)
        origin = request.fields_by_number.get(record.number) if request is not None else None
        if field is not None:
            out += _field(record, field, origin) or b""
    return bytes(out)


def _field(record: Record, field: FieldDescriptor, origin: FieldDescriptor | None) -> bytes | None:
    wire = WIRE[field.type]
    if record.wire == LEN and field.type == _F.TYPE_STRING:
        return record.raw if _utf8(record.payload) else None
    if record.wire == LEN and field.type == _F.TYPE_MESSAGE:
        inner = _message(record.payload, field, origin)
        return None if inner is None else _tag(record.number, LEN) + _varint(len(inner)) + inner
    if record.wire == START_GROUP and field.type == _F.TYPE_GROUP:
        inner = _message(record.payload, field, origin)
        return None if inner is None else _tag(record.number, START_GROUP) + inner + _tag(record.number, END_GROUP)
    if record.wire == LEN and field.is_repeated and wire != LEN:  # a packed run of scalars
        return record.raw if _packed(record.payload, wire) else None
    return record.raw if record.wire == wire else None


def _message(payload: bytes, field: FieldDescriptor, origin: FieldDescriptor | None) -> bytes | None:
    """A message field's content as the reply's message type reads it, or None: dropped."""
    target = field.message_type
    source = origin.message_type if origin is not None else None
    if source is not None and source.full_name == target.full_name:
        return payload
    if target.full_name in CHECKED_JSON:
        return None
    try:
        return kept(payload, target, source)
    except NotAMessage:
        return None


def records(data: bytes) -> list[Record]:
    """Every field of an encoded message, in order; NotAMessage when the bytes are none."""
    found, end = _records(data, 0, None)
    if end != len(data):
        raise NotAMessage("trailing bytes")
    return found


def _records(data: bytes, i: int, group: int | None) -> tuple[list[Record], int]:
    """The fields from `i` to the end, or to the end of the group numbered `group`."""
    found: list[Record] = []
    while i < len(data):
        start = i
        key, i = _read_varint(data, i)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise NotAMessage("field number 0")
        if wire == END_GROUP:
            if number != group:
                raise NotAMessage("a group's end without its start")
            return found, start
        payload, i = _payload(data, i, number, wire)
        found.append(Record(number, wire, payload, data[start:i]))
    if group is not None:
        raise NotAMessage("a group without its end")
    return found, i


def _payload(data: bytes, i: int, number: int, wire: int) -> tuple[bytes, int]:
    """(a field's payload, where the next field starts): for a group, its fields and past its end."""
    start = i
    if wire == VARINT:
        _, i = _read_varint(data, i)
    elif wire in (I64, I32):
        i += 8 if wire == I64 else 4
    elif wire == LEN:
        length, start = _read_varint(data, i)
        i = start + length
    elif wire == START_GROUP:
        _, end = _records(data, i, number)
        return data[i:end], _read_varint(data, end)[1]
    else:
        raise NotAMessage(f"wire type {wire}")
    if i > len(data):
        raise NotAMessage("truncated")
    return data[start:i], i


def _packed(payload: bytes, wire: int) -> bool:
    """Whether a packed run holds whole scalars of that wire type."""
    if wire != VARINT:
        return len(payload) % (8 if wire == I64 else 4) == 0
    i = 0
    try:
        while i < len(payload):
            _, i = _read_varint(payload, i)
    except NotAMessage:
        return False
    return True


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    for j in range(i, min(i + _MAX_VARINT_BYTES, len(data))):
        value |= (data[j] & 0x7F) << shift
        shift += 7
        if not data[j] & 0x80:
            return value, j + 1
    raise NotAMessage("a varint past the end or over 10 bytes")


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        bits, value = value & 0x7F, value >> 7
        out.append(bits | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _tag(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)
