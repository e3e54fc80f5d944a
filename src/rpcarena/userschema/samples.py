"""The user's requests (or replies): proto JSON, one message a line of a .jsonl file, or one --data.

Each is checked against its message type as it is read, so a sample that does not fit the schema
is a one-line error naming the file and the line, never a failed call in the middle of a run.
Samples are kept canonical (proto JSON with proto field names), as the seeds' payloads are.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from rpcarena.errors import UsageError
from rpcarena.files import inputs
from rpcarena.protocol import schema

MAX_SAMPLES = 100_000
_WIDE = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
         FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
_WELL_KNOWN = "google.protobuf."


def canonical(message: Any) -> dict[str, Any]:
    """A message as the workloads keep it: proto JSON with the .proto's field names, enums and 64-bit
    integers as numbers (as the seeds' payloads are, and as every codec here reads them). The
    well-known types keep their own JSON forms (a Timestamp is a string, an Int64Value "5")."""
    data = json_format.MessageToDict(message, preserving_proto_field_name=True, use_integers_for_enums=True,
                                     descriptor_pool=schema.user_pool())
    return _numbers(message.DESCRIPTOR, data)


def message_of(data: dict[str, Any], message_type: type[Message]) -> Any:
    """A canonical dict as a message of `message_type` (an Any's type found in the user's schema)."""
    return json_format.ParseDict(data, message_type(), descriptor_pool=schema.user_pool())


def _numbers(descriptor: Any, data: dict[str, Any]) -> dict[str, Any]:
    """proto JSON's 64-bit integer strings as numbers, in nested messages and map values too."""
    if descriptor.full_name.startswith(_WELL_KNOWN):
        return data
    for field in descriptor.fields:
        if field.name in data:
            data[field.name] = _field_numbers(field, data[field.name])
    return data


def _field_numbers(field: Any, value: Any) -> Any:
    inner = field.message_type
    if inner is not None and inner.GetOptions().map_entry:
        entry = inner.fields_by_name["value"]
        return {key: _one_numbers(entry, item) for key, item in value.items()}
    if field.is_repeated:
        return [_one_numbers(field, item) for item in value]
    return _one_numbers(field, value)


def _one_numbers(field: Any, value: Any) -> Any:
    if field.type in _WIDE:
        return int(value)
    if field.message_type is not None:
        return _numbers(field.message_type, value)
    return value


def parsed(text: str, message_type: type[Message], where: str, option: str) -> dict[str, Any]:
    """One sample, checked against `message_type`; `where` names it in the error ("F.jsonl:3")."""
    name = message_type.DESCRIPTOR.full_name
    try:
        return canonical(json_format.Parse(text, message_type(), descriptor_pool=schema.user_pool()))
    except json_format.ParseError as error:
        reason = " ".join(str(error).split())
        raise UsageError(f"{where}: the sample does not fit {name} ({reason}): fix it or the {option}") from None


def from_file(path: Path, message_type: type[Message], option: str) -> list[dict[str, Any]]:
    """Every non-blank line of a .jsonl file, in order."""
    if not path.exists():  # a FIFO or a folder is refused by open_regular, naming it
        raise UsageError(f"bad {option} {path}: no such file; give a .jsonl file of one proto JSON message a line")
    found = []
    with io.TextIOWrapper(inputs.open_regular(path, option), encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                found.append(parsed(line, message_type, f"{path}:{number}", option))
            if len(found) > MAX_SAMPLES:
                raise UsageError(f"{path}: over {MAX_SAMPLES:,} samples; keep a representative few")
    if not found:
        raise UsageError(f"{path} holds no sample: give one proto JSON message a line")
    return found


def from_text(text: str, message_type: type[Message], option: str) -> list[dict[str, Any]]:
    """--data: one message, or a JSON array of them."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise UsageError(f"bad {option}: not JSON ({error}); give a proto JSON message such as "
                         "'{\"id\": 1}'") from None
    items = data if isinstance(data, list) else [data]
    return [parsed(json.dumps(item), message_type, f"{option} item {i + 1}", option) for i, item in enumerate(items)]
