"""Response checks of a target: `--expect-json 'path=value'` (dotted path, `$` for the whole reply).

The expected status (`--expect-status`) is a property of the client (a reply with
another status is an error of kind `status_...`); the JSON checks are data, one
list per rendered request, so a value may use the request's {{variables}}. A
reply that fails a JSON check is counted as `wrong_answer`.
"""

from __future__ import annotations

import json
from typing import Any

from rpcarena.errors import UsageError
from rpcarena.external import template
from rpcarena.protocol.replies import equivalent

_MISSING = object()


def parse(text: str) -> tuple[str, str]:
    """('path', 'value template') from 'path=value'."""
    path, sep, value = text.partition("=")
    if not sep or not path.strip():
        raise UsageError(f"bad --expect-json {text!r}: write PATH=VALUE, e.g. 'message=Hello' or "
                         "'items.0.id={{id}}' ('$' is the whole reply)")
    return path.strip(), value


def render(checks: list[tuple[str, str]], binding: dict) -> list[list]:
    """The checks for one request: [path, expected value] with the value rendered and parsed."""
    out = []
    for path, value in checks:
        text = template.render(value, binding, f"--expect-json {path}={value}", escape="json")
        out.append([path, _value(text)])
    return out


def _value(text: str) -> Any:
    try:
        return json.loads(text)
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


def holds(reply: Any, checks: list[list]) -> bool:
    """Whether every [path, value] check holds for a decoded reply."""
    for path, want in checks:
        got = dig(reply, path)
        if got is _MISSING or not equivalent(got, want):
            return False
    return True
