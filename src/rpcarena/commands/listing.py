"""`rpcarena list`: what can be measured here, and what cannot, why, and what fixes it.

Every contender has a row: an unavailable one says what is missing and the command that installs
it (`builds.INSTALL`); a native one not built yet says so, as its first run will build it.
"""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rpcarena import contenders, seeds
from rpcarena.commands.options import command
from rpcarena.contenders import native

NAME = "list"
WIDE = 160  # columns the six-column contender table needs without cutting a word to '…'


def add(sub: argparse._SubParsersAction) -> None:
    p = command(sub, NAME, "contenders, workloads and suites, with what is unavailable and why",
            "List what can be measured here: every contender (its language, protocol and clients), the clients "
            "without a server, the workloads and the suites; what cannot run here says why and what fixes it.",
            ["rpcarena list", "rpcarena list | grep unavailable", "rpcarena list --format json"])
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table (default) or json: every contender, client, workload and suite, on stdout")


def main(args: argparse.Namespace, console: Console) -> int:
    if args.format == "json":
        print(json.dumps(inventory(), indent=2))
        return 0
    console.print(_contenders(console.width))
    _list_load_clients(console)
    loads = Table(title="workloads", header_style="bold")
    for name, longest in (("id", max(map(len, seeds.WORKLOADS))),
                          ("method", max(len(w.method) for w in seeds.WORKLOADS.values())), ("requests", 0)):
        loads.add_column(name, no_wrap=True, min_width=longest)  # a name is never cut: the description wraps
    loads.add_column("description", overflow="fold")
    for workload in seeds.WORKLOADS.values():
        loads.add_row(workload.id, workload.method, str(len(workload.requests)), workload.description)
    console.print(loads)
    _list_suites(console)
    return 0


def _contenders(width: int) -> Table:
    """The contenders: a table of six columns where they fit, else one entry per contender (its id,
    then its language, protocol and status, its clients and its description, each wrapped), as six
    columns in 80 or 100 cut every description and client list to '…'."""
    if width >= WIDE:
        table = Table(title="contenders", header_style="bold")
        for name in ("id", "language", "protocol", "clients", "status", "description"):
            table.add_column(name)
    else:
        table = Table(title="contenders (id, then language · protocol · status, clients, what it is)",
                      title_justify="left", show_header=False, box=None, padding=(0, 1))
        table.add_column(no_wrap=True, style="bold")
        table.add_column(overflow="fold")
    for contender in contenders.all_contenders().values():
        clients = ",".join(contenders.python_client_ids(contender.protocol) + native.client_ids(contender.protocol))
        if width >= WIDE:
            table.add_row(contender.id, contender.language, contender.protocol, clients, _status(contender),
                          contender.description)
        else:
            table.add_row(contender.id, f"{contender.language} · {contender.protocol} · {_status(contender)}\n"
                          f"[dim]clients:[/] {clients.replace(',', ', ')}\n{escape(contender.description)}")
    return table


def inventory() -> dict[str, list[dict]]:
    """What `list` shows, as data: for scripts (`--format json`), without the tables' markup."""
    def status(c: contenders.Contender) -> dict:
        reason = c.unavailable()
        return {"available": reason is None, "unavailable_because": reason}
    return {
        "contenders": [dict(id=c.id, language=c.language, protocol=c.protocol, description=c.description,
                            clients=contenders.python_client_ids(c.protocol) + native.client_ids(c.protocol),
                            **status(c)) for c in contenders.all_contenders().values()],
        "clients_without_server": [dict(id=c.id, language=c.language, protocol=c.protocol,
                                        description=c.description, **status(c)) for c in native.clients_only()],
        "workloads": [{"id": w.id, "method": w.method, "requests": len(w.requests), "description": w.description}
                      for w in seeds.WORKLOADS.values()],
        "suites": [{"name": s.name, "seed": s.seed, "runs": s.summary} for s in seeds.SUITES.values()],
    }


def _status(contender: contenders.Contender) -> str:
    unavailable = contender.unavailable()
    if unavailable is not None:
        return f"[yellow]unavailable[/]: {escape(unavailable)}"
    if isinstance(contender, native.NativeContender) and not contender.worker.built():
        return "[green]available[/], not built yet (on first use, or now: rpcarena build)"
    return "[green]available[/]"


def _list_load_clients(console: Console) -> None:
    """Clients with no server of their own: they only drive other contenders (--client ID)."""
    table = Table(title="clients without a server (--client ID)", header_style="bold")
    for name in ("id", "language", "protocol", "status", "description"):
        table.add_column(name)
    for client in native.clients_only():
        table.add_row(client.id, client.language, client.protocol, _status(client), client.description)
    if table.row_count:
        console.print(table)


def _list_suites(console: Console) -> None:
    suites = Table(title="suites (rpcarena suite NAME)", header_style="bold")
    for name in ("name", "seed", "what it runs"):
        suites.add_column(name)
    for suite in seeds.SUITES.values():
        suites.add_row(suite.name, suite.seed, suite.summary)
    console.print(suites)
