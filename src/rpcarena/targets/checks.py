"""Response checks of a target: `--expect-json 'path=value'` (dotted path, `$` for the whole reply).

`path~=[...]` compares a list in any order (each item as often as listed): a map's
entries or a set that a server returns in no fixed order (Go's map order).

The expected status (`--expect-status`) is a property of the client (a reply with
another status is an error of kind `status_...`); the JSON checks are data, one
list per rendered request, so a value may use the request's {{variables}}. A
reply that fails a JSON check is counted as `wrong_answer`.
"""

from __future__ import annotations

import json
from typing import Any

from rpcarena.errors import UsageError
from rpcarena.protocol.replies import equivalent
from rpcarena.targets import template

_MISSING = object()
ANY_ORDER = "any_order"  # a rendered check's third item: the list compared in any order
SHOWN_CHARS = 120  # expected and actual values in an error example


def parse(text: str) -> tuple[str, str, str | None]:
    """('path', 'value template', mode) from 'path=value' (mode None) or 'path~=[...]' (ANY_ORDER)."""
    path, sep, value = text.partition("=")
    mode = ANY_ORDER if path.endswith("~") else None
    path = path.removesuffix("~").strip()
    if not sep or not path:
        raise UsageError(f"bad --expect-json {text!r}: write PATH=VALUE, e.g. 'message=Hello' or "
                         "'items.0.id={{id}}' ('$' is the whole reply), or PATH~=[...] for a list in any order")
    return path, value, mode


def render(checks: list[tuple[str, str, str | None]], binding: dict[str, Any]) -> list[list[Any]]:
    """The checks for one request: [path, expected value] with the value rendered and parsed
    ([path, list, "any_order"] for a list in any order)."""
    out = []
    for path, value, mode in checks:
        where = f"--expect-json {path}{'~' if mode else ''}={value}"
        want = _value(template.render(value, binding, where, escape="json"), where)
        if mode and not isinstance(want, list):
            raise UsageError(f"bad {where}: ~= compares a list in any order; give a JSON list, e.g. '[1, 2]'")
        out.append([path, want, mode] if mode else [path, want])
    return out


def any_order(checks: list[list[Any]]) -> bool:
    """Whether one of a request's rendered checks compares a list in any order."""
    return any(check[2:] == [ANY_ORDER] for check in checks)


def _value(text: str, where: str) -> Any:
    try:
        return template.parse_json(text, where)
    except ValueError:
        return text  # a bare word: compared as a string


def dig(reply: Any, path: str) -> Any:
    """The value at a dotted path (list indexes are numbers), or a marker when absent."""
    node = reply
    for step in path.removeprefix("$").lstrip(".").split("."):
        if step == "":
            continue
        try:
            node = node[int(step)] if isinstance(node, (list, tuple)) and step.lstrip("-").isdigit() else node[step]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


def holds(reply: Any, checks: list[list[Any]]) -> bool:
    """Whether every [path, value] check holds for a decoded reply."""
    return failed(reply, checks) is None


def failed(reply: Any, checks: list[list[Any]]) -> list[Any] | None:
    """The first check a decoded reply fails, or None."""
    for check in checks:
        got = dig(reply, check[0])
        if got is _MISSING or not (_any_order(got, check[1]) if check[2:] else equivalent(got, check[1])):
            return check
    return None


def _any_order(got: Any, want: list[Any]) -> bool:
    """The same items as `want`, each as often, in any order."""
    if not isinstance(got, list) or len(got) != len(want):
        return False
    left = list(got)
    for item in want:
        match = next((i for i, g in enumerate(left) if equivalent(g, item)), None)
        if match is None:
            return False
        del left[match]
    return True


def explain(reply: Any, checks: list[list[Any]]) -> str:
    """Why a decoded reply fails its checks: the check, its path, expected and actual (bounded)."""
    check = failed(reply, checks)
    if check is None:
        return "the reply passes its checks"
    got = dig(reply, check[0])
    actual = "nothing there" if got is _MISSING else _shown(got)
    op = "~=" if check[2:] else "="
    return f"--expect-json {check[0]}{op}{_shown(check[1])}: at {check[0]} expected {_shown(check[1])}, got {actual}"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."
