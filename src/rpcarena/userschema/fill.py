"""--fill: requests generated from the schema alone, for a user who has no samples yet.

'strings=32B,bytes=4KB,repeated=100,seed=1,count=1': every string field that long, every bytes
field that large, every repeated field and map that many entries, numbers, booleans and enums
drawn from `seed`, `count` distinct requests. The same spec gives the same requests on every
machine (random.Random is seeded and walks the fields in their declared order), and the spec is
recorded with the results. A oneof gets its first member; nested messages are filled to
`MAX_DEPTH`, below which they are left empty so a recursive message stays finite.
"""

from __future__ import annotations

import base64
import random
import re
import string
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from rpcarena.errors import UsageError

MAX_DEPTH = 4
MAX_BYTES = 64 * 1024 * 1024
MAX_COUNT = 10_000
_SIZE_UNITS = {"": 1, "b": 1, "kb": 1024, "kib": 1024, "mb": 1024 * 1024, "mib": 1024 * 1024}
_KEYS = ("strings", "bytes", "repeated", "seed", "count")
_HELP = "write --fill 'strings=32B,bytes=4KB,repeated=100,seed=1' (and count=N for N requests)"


@dataclass(frozen=True)
class Fill:
    strings: int = 16
    bytes: int = 64
    repeated: int = 4
    seed: int = 1
    count: int = 1

    @property
    def text(self) -> str:
        """The spec in full, as the results record it."""
        return (f"strings={self.strings}B,bytes={self.bytes}B,repeated={self.repeated},seed={self.seed},"
                f"count={self.count}")


def parse_size(text: str, option: str) -> int:
    """'4KB' -> 4096 (KB and MB are binary, as message sizes are usually counted)."""
    match = re.fullmatch(r"\s*([0-9]+)\s*([a-zA-Z]*)\s*", text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _SIZE_UNITS:
        raise UsageError(f"bad {option} {text!r}: write a size such as 32B, 4KB or 1MB")
    size = int(match.group(1)) * _SIZE_UNITS[unit]
    if size > MAX_BYTES:
        raise UsageError(f"bad {option} {text!r}: at most {MAX_BYTES // (1024 * 1024)}MB")
    return size


def parse(text: str) -> Fill:
    values: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, sep, value = part.partition("=")
        if not sep or key.strip() not in _KEYS:
            raise UsageError(f"bad --fill part {part!r}: {_HELP}")
        key = key.strip()
        sized = key in ("strings", "bytes")
        values[key] = parse_size(value, f"--fill {key}") if sized else _count(value, key)
    fill = Fill(**values)
    if not 1 <= fill.count <= MAX_COUNT or fill.repeated > MAX_COUNT:
        raise UsageError(f"bad --fill {text!r}: count from 1 to {MAX_COUNT:,}, repeated at most {MAX_COUNT:,}")
    return fill


def _count(value: str, key: str) -> int:
    if not value.strip().isdigit():
        raise UsageError(f"bad --fill {key}={value!r}: give a whole number; {_HELP}")
    return int(value)


def requests(fill: Fill, descriptor: Any) -> list[dict[str, Any]]:
    """`fill.count` requests of the message `descriptor`, as proto JSON with proto field names."""
    rng = random.Random(fill.seed)
    return [_message(fill, descriptor, rng, 0) for _ in range(fill.count)]


def _message(fill: Fill, descriptor: Any, rng: random.Random, depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH or descriptor.full_name.startswith("google.protobuf."):
        return {}
    out = {}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.fields[0] is not field:
            continue  # a oneof holds one member: its first
        out[field.name] = _field(fill, field, rng, depth)
    return out


def _field(fill: Fill, field: Any, rng: random.Random, depth: int) -> Any:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key, value = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
        return {str(_scalar(fill, key, rng, depth)): _scalar(fill, value, rng, depth) for _ in range(fill.repeated)}
    if field.is_repeated:
        return [_scalar(fill, field, rng, depth) for _ in range(fill.repeated)]
    return _scalar(fill, field, rng, depth)


def _scalar(fill: Fill, field: Any, rng: random.Random, depth: int) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE or kind == FieldDescriptor.TYPE_GROUP:
        return _message(fill, field.message_type, rng, depth + 1)
    if kind == FieldDescriptor.TYPE_STRING:
        return "".join(rng.choices(string.ascii_letters + string.digits, k=fill.strings))
    if kind == FieldDescriptor.TYPE_BYTES:
        return base64.b64encode(rng.randbytes(fill.bytes)).decode()
    if kind == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if kind == FieldDescriptor.TYPE_ENUM:
        return rng.choice(field.enum_type.values).name
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return round(rng.uniform(0, 1000), 3)  # exact in a float: every language reads the same value
    return _integer(kind, rng)


def _integer(kind: int, rng: random.Random) -> int | str:
    wide = kind in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
                    FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64)
    value = rng.randrange(1 << 40) if wide else rng.randrange(1 << 31)
    return str(value) if wide else value  # proto JSON writes 64-bit integers as strings
