"""A reply of a user's method judged as the user's schema reads it, whatever mechanism carried it.

Every Python client of a user's method hands its replies here, as protobuf messages (gRPC) or as
canonical proto-JSON dicts (the mechanisms that hold dicts, tuples or structs convert theirs): each
is read into the user's reply type with Python protobuf and must equal the expected reply exactly:
field presence (an empty submessage is not an absent one, an `optional` field set to 0 is not
unset), -0.0, unknown enum values, extensions and unknown fields included. The one tolerance is a
NaN's payload (JSON says NaN, not which). The wire counts, not a library's tolerance: a server that
drops a field is a wrong answer even where the client's own library could not tell.

The common case is fast: equal messages compare in C, equal dicts by their JSON text; only a
difference is looked at field by field.
"""

from __future__ import annotations

import json
import math
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from rpcarena.protocol import schema

_FLOATS = (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)
_NAN = float("nan")
VERDICTS_KEPT = 4096  # distinct (expected, reply) pairs remembered; a run's few requests need far fewer


class Judge:
    """The judge of one method's replies (a server stream's reply is the list of its messages)."""

    def __init__(self, reply_type: type[Message]) -> None:
        self.reply_type = reply_type
        self._expected: dict[int, tuple[Any, str | None, Message | None]] = {}  # id(want) -> (want, text, message)
        self._verdicts: dict[tuple[int, str | bytes | None], bool] = {}  # (id(want), the reply's text) -> same

    def same(self, got: Any, want: Any) -> bool:
        if isinstance(want, list):
            return isinstance(got, list) and len(got) == len(want) and all(map(self.same, got, want))
        if isinstance(got, Message):
            return got == self._message(want) or self._judged(want, got.SerializeToString(), got)
        if isinstance(got, dict):
            text = _text(got)
            if text is not None and text == self._text(want):
                return True
            return self._judged(want, text, got)
        return False

    def _judged(self, want: Any, key: str | bytes | None, got: Any) -> bool:
        """The slow path, once per distinct reply to an expected one: a server answers the same
        request with the same bytes or text call after call (Go's proto JSON spells int64 as strings,
        never as the canonical dict does), so the Python client reads each spelling once, not per call."""
        seen = (id(want), key)
        if key is None or seen not in self._verdicts:
            if len(self._verdicts) >= VERDICTS_KEPT:
                self._verdicts.clear()
            message = got if isinstance(got, Message) else self.read(got)
            self._verdicts[seen] = self._equal_but_nan(message, self._message(want))
        return self._verdicts[seen]

    def explain(self, got: Any, want: Any) -> str:
        """Expected and actual as proto JSON, or as bytes when only the bytes differ (unknown fields, -0.0)."""
        if isinstance(want, list) or isinstance(got, list):
            return f"expected {len(want) if isinstance(want, list) else 1} replies, got {_count(got)}: " + next(
                (self.explain(g, w) for g, w in zip(got, want) if not self.same(g, w)), "")
        expected = self._message(want)
        actual = got if isinstance(got, Message) else self.read(got) if isinstance(got, dict) else None
        if actual is None:
            return f"expected {self.shown(expected)}, got {str(got)[:200]!r} (not a {_name(self.reply_type)})"
        if self.shown(actual) == self.shown(expected):
            return (f"expected bytes {_hex(expected)}, got {_hex(actual)} (equal as proto JSON: unknown fields "
                    "differ)")
        where, wanted, found = _difference(json.loads(self.shown(expected)), json.loads(self.shown(actual)), "")
        return f"at {where or 'the top'}: expected {wanted}, got {found}"

    def read(self, data: dict[str, Any]) -> Message | None:
        """A canonical dict as the user's reply message; None when it does not fit the schema."""
        try:
            return json_format.ParseDict(data, self.reply_type(), descriptor_pool=schema.user_pool())
        except (json_format.ParseError, ValueError, TypeError, AttributeError):
            return None

    def shown(self, message: Message | None) -> str:
        if message is None:
            return "nothing"
        return json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True,
                                                    descriptor_pool=schema.user_pool()), sort_keys=True)

    def _prepared(self, want: Any) -> tuple[Any, str | None, Message | None]:
        found = self._expected.get(id(want))
        if found is None or found[0] is not want:
            message = want if isinstance(want, Message) else self.read(want)
            found = (want, _text(want) if isinstance(want, dict) else None, message)
            self._expected[id(want)] = found
        return found

    def _text(self, want: Any) -> str | None:
        return self._prepared(want)[1]

    def _message(self, want: Any) -> Message | None:
        return self._prepared(want)[2]

    def _equal_but_nan(self, got: Message | None, want: Message | None) -> bool:
        if got is None or want is None:
            return False
        return bool(without_nan_payloads(got) == without_nan_payloads(want))


def of(method: str) -> Judge | None:
    """The judge of a method of the user's schema, or None for the arena's own and for what names no
    method of a schema (a target's HTTP method, 'GET': its replies are judged by its checks)."""
    info = schema.methods().get(method)
    return Judge(schema.message_class(info.response)) if info is not None and info.user else None


def _text(data: dict[str, Any]) -> str | None:
    """The dict as JSON text, for the fast path; None when it holds what JSON cannot (the slow path says)."""
    try:
        return json.dumps(data, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return None


def without_nan_payloads(message: Message) -> Message:
    """A copy whose every NaN is Python's own, so NaNs of other payloads compare equal."""
    copy = type(message)()
    copy.CopyFrom(message)
    _quiet_nans(copy)
    return copy


def _quiet_nans(message: Message) -> None:
    for field, value in message.ListFields():
        holder = message.Extensions if field.is_extension else None
        if field.type in _FLOATS:
            _floats(message, holder, field, value)
        elif field.message_type is not None and field.message_type.GetOptions().map_entry:
            _map_values(field, value)
        elif field.message_type is not None:
            for item in value if field.is_repeated else [value]:
                _quiet_nans(item)


def _floats(message: Message, holder: Any, field: Any, value: Any) -> None:
    if field.is_repeated:
        value[:] = [_NAN if math.isnan(v) else v for v in value]
    elif math.isnan(value):
        if holder is not None:
            holder[field] = _NAN
        else:
            setattr(message, field.name, _NAN)


def _map_values(field: Any, mapping: Any) -> None:
    entry = field.message_type.fields_by_name["value"]
    for key in list(mapping):
        if entry.type in _FLOATS and math.isnan(mapping[key]):
            mapping[key] = _NAN
        elif entry.message_type is not None:
            _quiet_nans(mapping[key])


_ABSENT = "(absent)"


def _difference(want: Any, got: Any, path: str) -> tuple[str, str, str]:
    """The first place two proto JSON values differ: (its path, the expected there, the actual there),
    so a wrong answer's example names the field however large the message."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            if key not in want or key not in got or _shown(want[key]) != _shown(got[key]):
                where = f"{path}.{key}" if path else key
                if key not in want or key not in got:
                    return where, _shown(want.get(key, _ABSENT)), _shown(got.get(key, _ABSENT))
                return _difference(want[key], got[key], where)
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for index, (w, g) in enumerate(zip(want, got)):
            if _shown(w) != _shown(g):
                return _difference(w, g, f"{path}[{index}]")
    return path, _shown(want), _shown(got)


def _shown(value: Any) -> str:
    text = value if value == _ABSENT else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 120 else text[:119] + "…"


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list) else 1


def _hex(message: Message) -> str:
    data = message.SerializeToString(deterministic=True)
    return str(data[:48].hex()) + ("…" if len(data) > 48 else "")


def _name(reply_type: type[Message]) -> str:
    return str(reply_type.DESCRIPTOR.full_name)
