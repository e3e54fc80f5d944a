"""Tagless encoding: every field in schema order, no tags, no field skipped.

The HPRPC idea (hprpc2016): all fields are required and their order is fixed, so
nothing but the values goes on the wire. A message value is a tuple of its field
values in declaration order; a nested message is a tuple, a repeated field a
tuple of values. Fixed-size scalars are little-endian; consecutive ones are
packed by one precompiled `struct.Struct` (LargeData8192 is a single
`Struct('<8192i')`); strings and bytes carry a varint length, repeated fields a
varint count, and 64-bit integers outside flat messages are zigzag varints (an id
of 10000 takes 2 bytes, not 8): values only, and as few bytes as the value needs.

A message whose fields are all of one fixed-size scalar type (LargeData*,
Vector3, Int32Msg) is held in its wire form, as FlatBuffers and Cap'n Proto
hold theirs: a `memoryview` cast to that type, a read-only sequence whose
fields become Python numbers only when read. Decoding one is zero-copy and
encoding one is a copy of its bytes; tuples are accepted too (and packed).
`hold` turns a tuple into that form. Decoding checks every length against the bytes that are really
there before it allocates, so a hostile frame cannot make it allocate more than
the frame's own size, and refuses a repeated count over the contract's cap
(`semantics.MAX_COUNT`): an empty string costs one byte on the wire, far more held.
"""

from __future__ import annotations

import base64
import struct
import sys
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, Literal

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from rpcarena.codec.proto_json import float_text
from rpcarena.protocol import schema
from rpcarena.protocol.semantics import MAX_COUNT

MAX_VARINT = 10  # bytes of the longest 64-bit varint
_FD = FieldDescriptor
VARINTS = {_FD.TYPE_INT64, _FD.TYPE_SINT64}  # zigzag varints, outside flat messages
# struct's format codes of the fixed-size scalars; a Literal so a memoryview cast to one is typed
Code = Literal["i", "I", "q", "Q", "d", "f", "?"]
FIXED: dict[int, Code] = {_FD.TYPE_INT32: "i", _FD.TYPE_SINT32: "i", _FD.TYPE_SFIXED32: "i", _FD.TYPE_ENUM: "i",
         _FD.TYPE_UINT32: "I", _FD.TYPE_FIXED32: "I", _FD.TYPE_INT64: "q", _FD.TYPE_SINT64: "q",
         _FD.TYPE_SFIXED64: "q", _FD.TYPE_UINT64: "Q", _FD.TYPE_FIXED64: "Q",
         _FD.TYPE_DOUBLE: "d", _FD.TYPE_FLOAT: "f", _FD.TYPE_BOOL: "?"}
DEFAULTS = {"i": 0, "I": 0, "q": 0, "Q": 0, "d": 0.0, "f": 0.0, "?": False}

Value = tuple[Any, ...]  # a message: its field values in schema order (a flat one may be a view)
Parts = list[bytes]  # the encoded pieces of a message, joined once
Decoded = list[Any]  # the field values decoded so far
Encoder = Callable[[Value, Parts], None]
Decoder = Callable[[bytes, int, Decoded], int]


class DecodeError(ValueError):
    """Bytes that are not a tagless encoding of the expected message (reject the frame)."""


class EncodeError(ValueError):
    """A value that does not fit its field (check the tuple against the schema order)."""


@lru_cache(maxsize=256)
def _array(code: str, count: int) -> struct.Struct:
    return struct.Struct(f"<{count}{code}")


def _remaining(buf: bytes, off: int, need: int, what: str) -> None:
    if need > len(buf) - off:
        raise DecodeError(f"{what} needs {need} bytes at offset {off}, only {len(buf) - off} left")


def varint(value: int) -> bytes:
    """LEB128 of an unsigned integer."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(buf: bytes, off: int) -> tuple[int, int]:
    """(value, next offset); a varint longer than 10 bytes or cut short is a DecodeError."""
    value = shift = 0
    for i in range(off, min(off + MAX_VARINT, len(buf))):
        byte = buf[i]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i + 1
        shift += 7
    raise DecodeError(f"a varint at offset {off} is cut short or longer than {MAX_VARINT} bytes")


def _read_length(buf: bytes, off: int) -> tuple[int, int]:
    size, off = read_varint(buf, off)
    if size > len(buf):  # no length can exceed the frame it came in
        raise DecodeError(f"a length of {size} exceeds the {len(buf)}-byte buffer")
    return size, off


def _read_count(buf: bytes, off: int, what: str) -> tuple[int, int]:
    """A repeated field's count, checked against the buffer and against the contract's cap."""
    count, off = _read_length(buf, off)
    if count > MAX_COUNT:
        raise DecodeError(f"{count} repeated {what} are over the cap of {MAX_COUNT}")
    return count, off


def _zigzag_step(index: int) -> tuple[Encoder, Decoder]:
    def encode(value: Value, parts: Parts) -> None:
        n = value[index]
        if not -(1 << 63) <= n < 1 << 63:
            raise EncodeError(f"{n} does not fit a 64-bit integer")
        parts.append(varint((n << 1) ^ (n >> 63)))

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        raw, off = read_varint(buf, off)
        out.append((raw >> 1) ^ -(raw & 1))
        return off

    return encode, decode


def _fixed_run(codes: str, start: int, stop: int) -> tuple[Encoder, Decoder]:
    packer = struct.Struct("<" + codes)

    def encode(value: Value, parts: Parts) -> None:
        parts.append(packer.pack(*value[start:stop]))

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        _remaining(buf, off, packer.size, "a run of fixed fields")
        out.extend(packer.unpack_from(buf, off))
        return off + packer.size

    return encode, decode


def _text(index: int, is_string: bool) -> tuple[Encoder, Decoder]:
    def encode(value: Value, parts: Parts) -> None:
        data = value[index].encode() if is_string else bytes(value[index])
        parts.append(varint(len(data)))
        parts.append(data)

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        size, off = _read_length(buf, off)
        _remaining(buf, off, size, "a string")
        out.append(_read_text(buf[off:off + size], is_string))
        return off + size

    return encode, decode


def _read_text(data: bytes, is_string: bool) -> str | bytes:
    if not is_string:
        return data
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        raise DecodeError(f"a string is not valid UTF-8 ({error.reason})") from None


def _repeated_fixed(index: int, code: Code) -> tuple[Encoder, Decoder]:
    width = struct.calcsize("<" + code)
    view = _native(code)  # held as a zero-copy view of the wire, like flat messages

    def encode(value: Value, parts: Parts) -> None:
        values = value[index]
        parts.append(varint(len(values)))
        if isinstance(values, memoryview) and values.format == view:
            parts.append(values.tobytes())
        else:
            parts.append(_array(code, len(values)).pack(*values))

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        count, off = _read_count(buf, off, "values")
        end = off + count * width
        _remaining(buf, off, count * width, f"{count} repeated values")
        out.append(memoryview(buf)[off:end].cast(view) if view else struct.unpack_from(f"<{count}{code}", buf, off))
        return end

    return encode, decode


def _native(code: Code) -> Code | None:
    """`code` when native values have the wire's (little-endian, standard-size) layout."""
    return code if sys.byteorder == "little" and struct.calcsize(code) == struct.calcsize("<" + code) else None


def _repeated_text(index: int, is_string: bool) -> tuple[Encoder, Decoder]:
    item_encode, item_decode = _text(0, is_string)

    def encode(value: Value, parts: Parts) -> None:
        values = value[index]
        parts.append(varint(len(values)))
        for item in values:
            item_encode((item,), parts)

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        count, off = _read_count(buf, off, "strings")
        _remaining(buf, off, count, f"{count} repeated strings")
        items: Decoded = []
        for _ in range(count):
            off = item_decode(buf, off, items)
        out.append(tuple(items))
        return off

    return encode, decode


def _nested(index: int, codec: MessageCodec, repeated: bool) -> tuple[Encoder, Decoder]:
    least = max(codec.min_size, 1)  # an empty nested message still costs a count slot of 1 here

    def encode(value: Value, parts: Parts) -> None:
        if not repeated:
            codec.encode_into(value[index], parts)
            return
        parts.append(varint(len(value[index])))
        for item in value[index]:
            codec.encode_into(item, parts)

    def decode(buf: bytes, off: int, out: Decoded) -> int:
        if not repeated:
            item, off = codec.decode_from(buf, off)
            out.append(item)
            return off
        count, off = _read_count(buf, off, codec.name)
        _remaining(buf, off, count * least, f"{count} repeated {codec.name}")
        items: Decoded = []
        for _ in range(count):
            item, off = codec.decode_from(buf, off)
            items.append(item)
        out.append(tuple(items))
        return off

    return encode, decode


class MessageCodec:
    """The tagless encoder and decoder of one message type, built from its descriptor."""

    def __init__(self, descriptor: Descriptor) -> None:
        self.name = descriptor.name
        self.descriptor = descriptor
        self.fields = tuple(descriptor.fields)
        self._steps = _steps(self.fields)
        self.min_size = _min_size(self.fields)
        self._whole = _whole_struct(self.fields)
        self._view = _view_code(self.fields)

    def hold(self, value: Value) -> Any:
        """The value as decoding gives it: flat messages (nested ones too) in their wire form."""
        return self.decode(self.encode(value))

    def encode(self, value: Any) -> bytes:
        if self._whole is None:
            parts: Parts = []
            self.encode_into(value, parts)
            return b"".join(parts)
        if isinstance(value, memoryview):
            if value.format != self._view or value.nbytes != self._whole.size:
                raise EncodeError(f"{self.name} takes a view of format {self._view!r} and {self._whole.size} bytes")
            return value.tobytes()
        try:
            return self._whole.pack(*value)
        except struct.error as error:
            raise EncodeError(f"{self.name}: {error}") from None

    def encode_into(self, value: Any, parts: Parts) -> None:
        if self._whole is not None:
            parts.append(self.encode(value))
            return
        if len(value) != len(self.fields):
            raise EncodeError(f"{self.name} takes {len(self.fields)} values in schema order, got {len(value)}")
        try:
            for encode, _ in self._steps:
                encode(value, parts)
        except (struct.error, TypeError, AttributeError) as error:
            raise EncodeError(f"{self.name}: {error}") from None

    def decode(self, buf: bytes) -> Any:
        """The value of a whole buffer; DecodeError unless it is exactly one encoding."""
        if self._whole is not None:
            if len(buf) != self._whole.size:
                raise DecodeError(f"{self.name} is {self._whole.size} bytes, got {len(buf)}")
            return memoryview(buf).cast(self._view) if self._view else self._whole.unpack(buf)
        value, off = self.decode_from(buf, 0)
        if off != len(buf):
            raise DecodeError(f"{len(buf) - off} trailing bytes after {self.name}")
        return value

    def decode_from(self, buf: bytes, off: int) -> tuple[Any, int]:
        if self._whole is not None:
            _remaining(buf, off, self._whole.size, self.name)
            end = off + self._whole.size
            if self._view:
                return memoryview(buf)[off:end].cast(self._view), end
            return self._whole.unpack_from(buf, off), end
        out: Decoded = []
        try:
            for _, decode in self._steps:
                off = decode(buf, off, out)
        except struct.error as error:  # pragma: no cover - every read is bounds-checked first
            raise DecodeError(f"{self.name}: {error}") from None
        return tuple(out), off


def _steps(fields: tuple[FieldDescriptor, ...]) -> list[tuple[Encoder, Decoder]]:
    steps: list[tuple[Encoder, Decoder]] = []
    run, start = "", 0
    for i, field in enumerate(fields):
        code = FIXED.get(field.type) if field.type not in VARINTS else None
        if code and not field.is_repeated:
            run, start = (run + code, start) if run else (code, i)
            continue
        if run:
            steps.append(_fixed_run(run, start, i))
            run = ""
        steps.append(_step(i, field))
    if run:
        steps.append(_fixed_run(run, start, len(fields)))
    return steps


def _step(i: int, field: FieldDescriptor) -> tuple[Encoder, Decoder]:
    if field.type == _FD.TYPE_MESSAGE:
        if field.message_type.GetOptions().map_entry:
            raise EncodeError(f"map field {field.full_name} has no tagless encoding: use a repeated message")
        return _nested(i, codec(field.message_type.full_name), field.is_repeated)
    if field.type in (_FD.TYPE_STRING, _FD.TYPE_BYTES):
        is_string = field.type == _FD.TYPE_STRING
        return _repeated_text(i, is_string) if field.is_repeated else _text(i, is_string)
    if field.type in VARINTS and not field.is_repeated:
        return _zigzag_step(i)
    if field.type in FIXED:
        return _repeated_fixed(i, FIXED[field.type])
    raise EncodeError(f"field {field.full_name} has a type tagless does not encode (groups)")


def _min_size(fields: tuple[FieldDescriptor, ...]) -> int:
    size = 0
    for field in fields:
        if field.is_repeated or field.type in (_FD.TYPE_STRING, _FD.TYPE_BYTES) or field.type in VARINTS:
            size += 1
        elif field.type == _FD.TYPE_MESSAGE:
            size += codec(field.message_type.full_name).min_size
        else:
            size += struct.calcsize("<" + FIXED[field.type])
    return size


def _whole_struct(fields: tuple[FieldDescriptor, ...]) -> struct.Struct | None:
    """One Struct for a message made only of fixed-size scalars (the LargeData case)."""
    codes = [FIXED[f.type] for f in fields if not f.is_repeated and f.type in FIXED]
    if fields and len(codes) == len(fields):
        return struct.Struct("<" + "".join(codes))
    return None


def _view_code(fields: tuple[FieldDescriptor, ...]) -> Code | None:
    """The one native format of a flat message, when native and wire layouts agree."""
    codes = {FIXED.get(f.type) if not f.is_repeated else None for f in fields}
    code = codes.pop() if len(codes) == 1 else None
    return _native(code) if code else None


def plain(value: Any) -> Any:
    """Views and nested tuples as plain tuples (for comparisons with tolerance)."""
    if isinstance(value, memoryview):
        return tuple(value.tolist())
    if isinstance(value, (tuple, list)):
        return tuple(plain(v) for v in value)
    return value


@cache
def codec(full_name: str) -> MessageCodec:
    """The codec of a message of the canonical schema, e.g. 'arena.LargeData8192', or of the user's."""
    arena = schema.pb2().DESCRIPTOR.message_types_by_name
    return MessageCodec(schema.user_message(full_name) or arena[full_name.rpartition(".")[2]])


def from_dict(descriptor: Descriptor, data: dict[str, Any]) -> Value:
    """A canonical (proto-JSON) dict as the tagless tuple; missing fields take their defaults."""
    return tuple(_from_field(f, data.get(f.name)) for f in descriptor.fields)


def _from_field(field: FieldDescriptor, value: Any) -> Any:
    if field.is_repeated:
        return tuple(_from_scalar(field, v) for v in (value or ()))
    return _from_scalar(field, value)


def _from_scalar(field: FieldDescriptor, value: Any) -> Any:
    if field.type == _FD.TYPE_MESSAGE:
        return from_dict(field.message_type, value or {})
    if field.type == _FD.TYPE_STRING:
        return value or ""
    if field.type == _FD.TYPE_BYTES:  # proto JSON's base64 (the seeds' payloads hold no bytes)
        return base64.b64decode(value) if isinstance(value, str) else value or b""
    code = FIXED[field.type]
    if value is None:
        return DEFAULTS[code]
    return float(value) if code in "df" else bool(value) if code == "?" else int(value)


def to_dict(descriptor: Descriptor, value: Value) -> dict[str, Any]:
    """The tagless tuple as a canonical dict (every field present)."""
    out: dict[str, Any] = {}
    for field, item in zip(descriptor.fields, value):
        if field.type == _FD.TYPE_BYTES:
            out[field.name] = [_base64(v) for v in item] if field.is_repeated else _base64(item)
        elif field.type in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT):
            out[field.name] = [float_text(v) for v in item] if field.is_repeated else float_text(item)
        elif field.type != _FD.TYPE_MESSAGE:
            out[field.name] = list(item) if field.is_repeated else item
        elif field.is_repeated:
            out[field.name] = [to_dict(field.message_type, v) for v in item]
        else:
            out[field.name] = to_dict(field.message_type, item)
    return out


def _base64(data: bytes) -> str:
    """bytes as proto JSON writes them."""
    return base64.b64encode(data).decode()
