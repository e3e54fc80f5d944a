"""Per-call request data: variables (`--var`) and `{{name}}` templates rendered before measuring.

A variable draws its values from a list (`id=a,b,c`), an inclusive integer range
(`id=range:1:1000`, optionally `:STEP`) or a CSV column (`id=csv:FILE:COLUMN`).
Binding k takes the k-th value of every variable (each cycling), so there are as
many distinct bindings as the longest variable has values, at most `limit`.
Rendering happens once, before the measured phase; the clients cycle through it.
A data file (`--data-file`) gives the request templates themselves: one JSON
document, or JSON lines (one request per line).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from rpcarena.errors import UsageError
from rpcarena.files import inputs

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
VAR_HELP = "write NAME=a,b,c, NAME=range:1:1000 or NAME=csv:FILE:COLUMN"
MAX_VALUES = 10**15  # a range's: only the first --vars-limit are ever rendered
# What a data or CSV file may hold: read whole, rendered, and sent to every driver (/dev/zero never ends).
MAX_FILE_BYTES = 64 * 2**20
# Nesting of a request or an expected value: protobuf's own recursion limit, far past any real message;
# deeper JSON would fail later, in an encoder or a client, as a traceback in the middle of a run.
MAX_DEPTH = 100


@dataclass(frozen=True)
class Var:
    """One templating variable and the values it takes."""

    name: str
    values: Sequence[Any]  # a tuple, or a range (never built: --vars-limit takes only its first values)


def parse_var(text: str) -> Var:
    """A `--var` option as a Var (a one-line UsageError when malformed)."""
    name, sep, source = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or not source:
        raise UsageError(f"bad --var {text!r}: {VAR_HELP}")
    if source.startswith("range:"):
        values: Sequence[Any] = _range(text, source[len("range:"):])
    elif source.startswith("csv:"):
        values = _csv_column(text, source[len("csv:"):])
    else:
        values = tuple(v.strip() for v in source.split(","))
    if not values:
        raise UsageError(f"bad --var {text!r}: it has no values; {VAR_HELP}")
    return Var(name, values)


def _range(text: str, spec: str) -> range:
    try:
        bounds = [int(part) for part in spec.split(":")]
    except ValueError:
        bounds = []
    if len(bounds) not in (2, 3) or (len(bounds) == 3 and bounds[2] <= 0):
        raise UsageError(f"bad --var {text!r}: write NAME=range:FIRST:LAST or NAME=range:FIRST:LAST:STEP "
                         "with whole numbers (LAST included, STEP positive)")
    step = bounds[2] if len(bounds) == 3 else 1
    values = range(bounds[0], bounds[1] + 1, step)
    if (values.stop - values.start) // step > MAX_VALUES:  # len() itself overflows past sys.maxsize
        raise UsageError(f"bad --var {text!r}: at most {MAX_VALUES:,} values")
    return values


def _csv_column(text: str, spec: str) -> tuple[Any, ...]:
    path, sep, column = spec.rpartition(":")
    if not sep or not path or not column:
        raise UsageError(f"bad --var {text!r}: write NAME=csv:FILE:COLUMN")
    try:
        rows = list(csv.DictReader(io.StringIO(read_text(path, "--var"), newline="")))
    except csv.Error as error:
        raise UsageError(f"bad --var {text!r}: {path} is not a CSV file ({error}): give one") from None
    if rows and column not in rows[0]:
        raise UsageError(f"bad --var {text!r}: {path} has no column {column!r} (it has: {', '.join(rows[0])})")
    return tuple(row[column] for row in rows if row.get(column) is not None)


def read_text(path_text: str, option: str) -> str:
    """A file given to an option, as text: a regular file (a FIFO is refused before it is opened, never
    waited on), at most MAX_FILE_BYTES, UTF-8, else a one-line error."""
    try:
        with inputs.open_regular(path_text, option) as source:
            data = source.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise UsageError(f"bad {option} {path_text!r}: larger than {MAX_FILE_BYTES // 2**20} MiB; give a smaller "
                             "file (its requests are all held in memory and sent to every driver)")
        return data.decode()
    except (OSError, UnicodeError) as error:
        raise UsageError(f"bad {option} {path_text!r}: cannot read it as text "
                         f"({getattr(error, 'strerror', None) or error}): give a UTF-8 file") from None


def data_file(path_text: str) -> list[str]:
    """The request templates of a `--data-file`: the whole file when it is one JSON document
    (pretty-printed is fine), else each non-empty line; a {{name}} counts as a value."""
    text = read_text(path_text, "--data-file")
    if _json(PLACEHOLDER.sub("0", text), f"--data-file {path_text}"):
        return [text.strip()]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for n, line in enumerate(lines, 1):
        if not _json(PLACEHOLDER.sub("0", line), f"--data-file {path_text} line {n}"):
            raise UsageError(f"bad --data-file {path_text!r}: line {n} is not JSON; give one JSON document, "
                             "or JSON lines (one request per line)")
    if not lines:
        raise UsageError(f"bad --data-file {path_text!r}: it is empty; give one request per line")
    return lines


def _json(text: str, where: str) -> bool:
    try:
        parse_json(text, where)
    except ValueError:
        return False
    return True


def parse_json(text: str, where: str) -> object:
    """JSON parsed (a ValueError when it is not JSON), refused in one line past MAX_DEPTH levels."""
    shown = where if len(where) <= 80 else f"{where[:77]}..."
    too_deep = UsageError(f"{shown} nests deeper than {MAX_DEPTH} levels: flatten it")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    if _depth(value) > MAX_DEPTH:
        raise too_deep
    return value


def _depth(value: object) -> int:
    """Levels of lists and objects, counted breadth first (no recursion) and no further than MAX_DEPTH + 1."""
    depth, level = 0, [value]
    while depth <= MAX_DEPTH:
        containers = [v for v in level if isinstance(v, (list, dict))]
        if not containers:
            break
        depth += 1
        level = [child for c in containers for child in (c.values() if isinstance(c, dict) else c)]
    return depth


def bindings(variables: list[Var], limit: int) -> list[dict[str, Any]]:
    """The distinct value sets the templates are rendered with (one, empty, without variables)."""
    names = [v.name for v in variables]
    if len(set(names)) != len(names):
        repeated = next(n for n in names if names.count(n) > 1)
        raise UsageError(f"--var {repeated} is given twice for one target: keep one")
    count = min(limit, max((len(v.values) for v in variables), default=1))
    return [{v.name: v.values[k % len(v.values)] for v in variables} for k in range(count)]


def _text(value: object) -> str:
    return str(value)


def _json_text(value: object) -> str:
    # inside a JSON string or as a bare number: escape what would break the document
    return json.dumps(str(value))[1:-1]


def _url_text(value: object) -> str:
    return quote(str(value), safe="")


ESCAPES: dict[str, Callable[[object], str]] = {"text": _text, "json": _json_text, "url": _url_text}


def render(template: str, binding: dict[str, Any], where: str, escape: str = "text") -> str:
    """`template` with every {{name}} replaced by its value in `binding`."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in binding:
            raise UsageError(f"{where} uses {{{{{name}}}}} but no --var {name}=... is given: add one "
                             "or remove the placeholder")
        return ESCAPES[escape](binding[name])
    return PLACEHOLDER.sub(value, template)


def render_json(template: str, binding: dict[str, Any], where: str) -> object:
    """A JSON template rendered and parsed."""
    text = render(template, binding, where, escape="json")
    try:
        return parse_json(text, where)
    except json.JSONDecodeError as error:
        raise UsageError(f"{where} is not JSON once rendered ({error.msg} at column {error.colno}): "
                         f"fix it, e.g. quote string placeholders as \"{{{{name}}}}\"") from None
