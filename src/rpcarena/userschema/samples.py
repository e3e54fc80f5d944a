"""The user's requests (or replies): proto JSON, one message a line of a .jsonl file, or one --data.

Each is checked against its message type as it is read, so a sample that does not fit the schema
is a one-line error naming the file and the line, never a failed call in the middle of a run.
Samples are kept canonical (proto JSON with proto field names), as the seeds' payloads are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from rpcarena.errors import UsageError

MAX_SAMPLES = 100_000


def canonical(message: Any) -> dict[str, Any]:
    """A message as the workloads keep it: proto JSON with the .proto's field names."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def parsed(text: str, message_type: type, where: str, option: str) -> dict[str, Any]:
    """One sample, checked against `message_type`; `where` names it in the error ("F.jsonl:3")."""
    name = message_type.DESCRIPTOR.full_name  # type: ignore[attr-defined]
    try:
        return canonical(json_format.Parse(text, message_type()))
    except json_format.ParseError as error:
        reason = " ".join(str(error).split())
        raise UsageError(f"{where}: the sample does not fit {name} ({reason}): fix it or the {option}") from None


def from_file(path: Path, message_type: type, option: str) -> list[dict[str, Any]]:
    """Every non-blank line of a .jsonl file, in order."""
    if not path.is_file():
        raise UsageError(f"bad {option} {path}: no such file; give a .jsonl file of one proto JSON message a line")
    found = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                found.append(parsed(line, message_type, f"{path}:{number}", option))
            if len(found) > MAX_SAMPLES:
                raise UsageError(f"{path}: over {MAX_SAMPLES:,} samples; keep a representative few")
    if not found:
        raise UsageError(f"{path} holds no sample: give one proto JSON message a line")
    return found


def from_text(text: str, message_type: type, option: str) -> list[dict[str, Any]]:
    """--data: one message, or a JSON array of them."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise UsageError(f"bad {option}: not JSON ({error}); give a proto JSON message such as "
                         "'{\"id\": 1}'") from None
    items = data if isinstance(data, list) else [data]
    return [parsed(json.dumps(item), message_type, f"{option} item {i + 1}", option) for i, item in enumerate(items)]
