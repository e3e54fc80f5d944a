"""`rpcarena list`: what can be measured here, and what cannot, why, and what fixes it.

One line per contender (its id, language, protocol and status), plain text that fits 80 columns
and a pipe alike; `rpcarena list NAME` says the rest of one contender, client, workload or suite:
its clients, what it is, and for an unavailable one what is missing and the command that installs
it (`builds.INSTALL`). A native one not built yet says so, as its first run will build it.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import TypedDict

from rich.console import Console

from rpcarena import contenders, seeds
from rpcarena.commands.options import Subcommands, command
from rpcarena.contenders import native
from rpcarena.errors import UsageError
from rpcarena.suggest import did_you_mean

NAME = "list"
WIDTH = 80  # what every line fits, whatever the terminal (a pipe included)
GAP = "  "


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "contenders, workloads and suites, with what is unavailable and why",
            "List what can be measured here, a line each: every contender (its language, protocol and status), "
            "the clients without a server, the workloads and the suites. `rpcarena list NAME` says the rest of "
            "one: its clients, what it is, and what an unavailable one needs and the command that installs it.",
            ["rpcarena list", "rpcarena list grpc-java", "rpcarena list | grep unavailable",
             "rpcarena list --format json"])
    p.add_argument("name", nargs="?", metavar="NAME", help="one contender, client, workload or suite: all of it")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table (default) or json: every contender, client, workload and suite, on stdout")


def main(args: argparse.Namespace, console: Console) -> int:
    if args.format == "json":
        print(json.dumps(inventory(), indent=2))
        return 0
    width = min(console.width, WIDTH)
    lines = detail(args.name, width) if args.name else overview(width)
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return 0


def overview(width: int) -> list[str]:
    """Every contender, client without a server, workload and suite, a line each (a description
    that does not fit wraps under itself)."""
    every = list(contenders.all_contenders().values())
    lines = ["contenders (rpcarena list NAME: its clients, what it is, what it needs)"]
    lines += _columns([(c.id, c.language, c.protocol, _status(c)) for c in every], width)
    loaders = native.clients_only()
    if loaders:
        lines += ["", "clients without a server (--client ID)"]
        lines += _columns([(c.id, c.language, c.protocol, _status(c)) for c in loaders], width)
    lines += ["", "workloads (--workload ID or a pattern such as 'usp.*')"]
    lines += _described([(w.id, w.description) for w in seeds.WORKLOADS.values()], width)
    lines += ["", "suites (rpcarena suite NAME)"]
    return lines + _described([(s.name, s.seed) for s in seeds.SUITES.values()], width)


def _columns(rows: list[tuple[str, ...]], width: int) -> list[str]:
    """Rows as aligned columns; the last (a status) is cut at a comma to fit `width`, as `list NAME`
    has it whole."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        head = GAP + GAP.join(text.ljust(w) for text, w in zip(row, widths)) + GAP
        out.append(head + _fit(row[-1], width - len(head)))
    return out


def _fit(text: str, room: int) -> str:
    """`text`, or its longest head that ends before a comma and fits `room` (never a word cut)."""
    while len(text) > room and ", " in text:
        text = text.rsplit(", ", 1)[0]
    return text


def _described(rows: list[tuple[str, str]], width: int) -> list[str]:
    """'  name  what it is', what it is wrapped under itself."""
    name_width = max(len(name) for name, _ in rows)
    indent = " " * (len(GAP) * 2 + name_width)
    out = []
    for name, text in rows:
        first = f"{GAP}{name.ljust(name_width)}{GAP}"
        out += textwrap.wrap(text, width, initial_indent=first, subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False) or [first.rstrip()]
    return out


def detail(name: str, width: int) -> list[str]:
    """All of one contender, client, workload or suite, wrapped at `width`."""
    found = _named().get(name)
    if found is None:
        raise UsageError(f"bad NAME {name!r}: no contender, client, workload or suite is called that"
                         f"{did_you_mean(name, _named())}; rpcarena list names them all")
    return [line for key, value in found for line in _pair(key, value, width)]


def _pair(key: str, value: str, width: int) -> list[str]:
    return textwrap.wrap(value, width, initial_indent=f"{key}: ", subsequent_indent="  ", break_long_words=False,
                         break_on_hyphens=False)


def _named() -> dict[str, list[tuple[str, str]]]:
    """What `list NAME` says of each name."""
    out: dict[str, list[tuple[str, str]]] = {}
    servers = contenders.all_contenders()
    for c in [*servers.values(), *native.clients_only()]:
        server = c.id in servers
        out[c.id] = [("contender" if server else "client without a server", c.id),
                     ("language", c.language), ("protocol", c.protocol), ("status", _status(c, whole=True)),
                     *([("clients", ", ".join(_clients(c)))] if server else []), ("what it is", c.description)]
    for w in seeds.WORKLOADS.values():
        out[w.id] = [("workload", w.id), ("method", w.method), ("requests", str(len(w.requests))),
                     ("what it is", w.description)]
    for s in seeds.SUITES.values():
        out[s.name] = [("suite", s.name), ("seed", s.seed), ("runs", s.summary)]
    return out


def _clients(c: contenders.Contender) -> list[str]:
    return contenders.python_client_ids(c.protocol) + native.client_ids(c.protocol)


class Availability(TypedDict):
    available: bool
    unavailable_because: str | None


class ClientRow(Availability):
    """A client without a server of its own, as `list --format json` gives it."""

    id: str
    language: str
    protocol: str
    description: str


class ContenderRow(ClientRow):
    clients: list[str]  # the clients that can drive it


class WorkloadRow(TypedDict):
    id: str
    method: str
    requests: int
    description: str


class SuiteRow(TypedDict):
    name: str
    seed: str
    runs: str


class Inventory(TypedDict):
    contenders: list[ContenderRow]
    clients_without_server: list[ClientRow]
    workloads: list[WorkloadRow]
    suites: list[SuiteRow]


def inventory() -> Inventory:
    """What `list` shows, as data: for scripts (`--format json`)."""
    def status(c: contenders.Contender) -> Availability:
        reason = c.unavailable()
        return {"available": reason is None, "unavailable_because": reason}
    return {
        "contenders": [{"id": c.id, "language": c.language, "protocol": c.protocol, "description": c.description,
                        "clients": _clients(c), **status(c)} for c in contenders.all_contenders().values()],
        "clients_without_server": [{"id": c.id, "language": c.language, "protocol": c.protocol,
                                    "description": c.description, **status(c)} for c in native.clients_only()],
        "workloads": [{"id": w.id, "method": w.method, "requests": len(w.requests), "description": w.description}
                      for w in seeds.WORKLOADS.values()],
        "suites": [{"name": s.name, "seed": s.seed, "runs": s.summary} for s in seeds.SUITES.values()],
    }


def _status(contender: contenders.Contender, whole: bool = False) -> str:
    """'available', 'not built yet' or 'unavailable: needs go, protoc' (`whole`: with what installs it)."""
    unavailable = contender.unavailable()
    if unavailable is not None:
        return f"unavailable: {unavailable if whole else _short(unavailable)}"
    if isinstance(contender, native.NativeContender) and not contender.worker.built():
        return "not built yet (on first use, or now: rpcarena build)" if whole else "not built yet"
    return "available"


def _short(reason: str) -> str:
    """A reason's first clause: 'needs go, protoc' of 'needs go, protoc (not found on PATH): install ...'."""
    return reason.split(" (", 1)[0].split(": ", 1)[0]
