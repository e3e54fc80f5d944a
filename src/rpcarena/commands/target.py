"""`rpcarena target`: benchmark servers rpcarena did not start, side by side, with the arena's method.

Grammar: each target is a run of target options. `--grpc`, `--http` or `--rpyc`
gives its address; the next target begins where an address comes again or where
a single-valued target option (such as --name) is given a second time.
Repeatable options (--var, --header, --import-path, --expect-json) add to the
current target. The measurement options (--calls, --clients, --rate, ...) apply
to every target.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from rpcarena import report
from rpcarena.commands.options import (
    DEFAULT_WARMUP,
    add_measure_options,
    add_out_options,
    measure_settings,
    new_results_file,
    writable_file,
)
from rpcarena.commands.run import find_max_arena, finish, run_arena
from rpcarena.config import RunConfig, parse_duration
from rpcarena.errors import UsageError
from rpcarena.external import cells, native
from rpcarena.external.build import build
from rpcarena.external.target import Target, probe
from rpcarena.report.terminal import render

NAME = "target"
MAX_VARS = 1_000_000  # distinct rendered requests, all held in memory and sent to every driver
DEFAULT_TIMEOUT = "5s"

EPILOG = """\
Each --grpc/--http/--rpyc starts a target; the options after it (and a --name just before it)
describe that target. Templates use {{name}} with --var name=a,b,c | name=range:1:1000 |
name=csv:FILE:COLUMN; all distinct requests (at most --vars-limit) are rendered before measuring.

example (a gRPC and a REST implementation of one service, measured alike):
  rpcarena target --calls 2000 --clients 1,8 \\
    --name grpc --grpc 127.0.0.1:50051 --method arena.Arena/SayHello --proto proto/arena.proto \\
        --data '{"name": "{{who}}"}' --var who=ann,bob --expect-json 'message=Hello {{who}}' \\
    --name rest --http http://127.0.0.1:8000/arena/SayHello --body '{"name": "{{who}}"}' \\
        --var who=ann,bob --expect-json 'message=Hello {{who}}'
"""

ADDRESSES = {"--grpc": "HOST:PORT (a gRPC server)", "--http": "URL template, e.g. http://h:8000/items/{{id}}",
             "--rpyc": "HOST:PORT (an RPyC server)"}
SINGLE = {
    "--name": "the target's name in the table (default: its kind)",
    "--method": "gRPC method, package.Service/Method",
    "--proto": "gRPC: the service's .proto (default: ask the server by reflection)",
    "--data": "gRPC: the request as a JSON template (default {})",
    "--http-method": "HTTP method (default GET, or POST with --body)",
    "--body": "HTTP: the body template (JSON gets Content-Type: application/json)",
    "--rpyc-method": "RPyC: the exposed method's name",
    "--args": "RPyC: the arguments as a JSON list template",
    "--expect-status": "HTTP status code (default any 2xx) or gRPC status name (default OK)",
    "--server-pid": "pid of the target's server: measure its CPU per call and peak RSS",
    "--stream-messages": "gRPC streams: replies read before the client ends the stream (default: the server ends it)",
}
FLAGS = {"--http2": "HTTP: speak HTTP/2 (h2c on http://, h2 on https://; --client go)"}
REPEATED = {
    "--import-path": "gRPC: a directory .proto imports are found in (repeatable)",
    "--var": "a template variable: NAME=a,b,c | NAME=range:1:1000 | NAME=csv:FILE:COLUMN (repeatable)",
    "--header": "HTTP header 'Name: value' (repeatable, templated)",
    "--expect-json": "check PATH=VALUE on each reply, dotted path, $ = whole reply (repeatable, templated)",
}


def _key(option: str) -> str:
    return option[2:].replace("-", "_")


class TargetOption(argparse.Action):
    """Adds one option to the current target, or starts the next target (see the module's grammar)."""

    def __call__(self, parser: Any, namespace: Any, value: Any, option: Any = None) -> None:
        groups = list(getattr(namespace, "targets", None) or [])
        key, address = _key(option), option in ADDRESSES
        value = True if option in FLAGS else value
        current = groups[-1] if groups else None
        starts = (current is None or (address and "kind" in current)
                  or (not address and option in SINGLE and key in current))
        if starts:
            current = {}
            groups.append(current)
        if address:
            current["kind"], current["address"] = key, value
        elif option in REPEATED:
            current.setdefault(key, []).append(value)
        else:
            current[key] = value
        namespace.targets = groups


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("target", help="benchmark your own gRPC, HTTP or RPyC servers, side by side",
                       allow_abbrev=False,
                       description=__doc__.split("\n\n", 1)[1], epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    group = p.add_argument_group("targets")
    for table in (ADDRESSES, SINGLE, REPEATED):
        for option, text in table.items():
            group.add_argument(option, action=TargetOption, dest="_" + _key(option), metavar=_metavar(option),
                               help=text, default=argparse.SUPPRESS)
    for option, text in FLAGS.items():
        group.add_argument(option, action=TargetOption, nargs=0, dest="_" + _key(option), help=text,
                           default=argparse.SUPPRESS)
    _add_measure_options(p.add_argument_group("measurement (every target alike)"))


def _metavar(option: str) -> str:
    return {"--grpc": "ADDR", "--http": "URL", "--rpyc": "ADDR", "--var": "NAME=VALUES",
            "--header": "'K: V'", "--expect-json": "PATH=VALUE"}.get(option, _key(option).upper())


def _add_measure_options(p: Any) -> None:
    add_measure_options(p)
    p.add_argument("--client", default=native.PYTHON,
                   help="who calls: py (default; what a Python caller feels, and RPyC) or go (native: full speed, "
                        "gRPC streams, HTTP/2)")
    p.add_argument("--vars-limit", type=int, default=10_000,
                   help=f"most distinct rendered requests per target (default 10000, at most {MAX_VARS:,})")
    add_out_options(p, "results/target.json")




def targets_from(args: argparse.Namespace) -> list[Target]:
    """Every target of the command line, built and checked (no call made yet)."""
    groups = getattr(args, "targets", None) or []
    if not groups:
        raise UsageError("no target: give at least one --grpc HOST:PORT, --http URL or --rpyc HOST:PORT "
                         "(see rpcarena target --help)")
    if not 1 <= args.vars_limit <= MAX_VARS:
        raise UsageError(f"bad --vars-limit {args.vars_limit}: give 1 to {MAX_VARS:,}")
    timeout_s = _timeout_s(args)
    names = _names(groups)
    return [build(group, name, args.vars_limit, timeout_s) for group, name in zip(groups, names)]


def _names(groups: list[dict]) -> list[str]:
    """Each target's name: its --name, else its kind (numbered when several share it)."""
    names = [g.get("name") or g.get("kind") or "target" for g in groups]
    for name in set(names):
        same = [i for i, n in enumerate(names) if n == name]
        if len(same) > 1 and any(groups[i].get("name") == name for i in same):
            raise UsageError(f"two targets are named {name!r}: give each its own --name")
        if len(same) > 1:
            for k, i in enumerate(same, 1):
                names[i] = f"{name}-{k}"
    return names


def _timeout_s(args: argparse.Namespace) -> float:
    return parse_duration(args.timeout or DEFAULT_TIMEOUT, "--timeout") or 0.0


def config_from(args: argparse.Namespace, targets: list[Target]) -> RunConfig:
    given = dict(measure_settings(args), contenders=[t.id for t in targets], workloads=[t.label for t in targets],
                 client_drivers=[native.check_client(args.client)], out=Path(args.out))
    given.setdefault("warmup_s", parse_duration(DEFAULT_WARMUP, "--warmup"))
    return RunConfig(**given)


def describe(target: Target) -> dict:
    """The target as the results document records it (the schema itself left out)."""
    return {"name": target.id, "kind": target.protocol, "address": target.address, "method": target.method,
            "call": target.label, "distinct_requests": len(target.requests), "server_pid": target.server_pid,
            "expect_status": target.description.get("expect_status")}


def _probe(target: Target, config: RunConfig) -> None:
    """One checked call before measuring, by the client that will measure (when it can call the target)."""
    client = config.client_drivers[0]
    if native.cannot(target, client):
        return  # its cells say why they are not measured
    if client == native.PYTHON:
        probe(target, config.timeout_ms / 1000)
    else:
        native.probe(target, client, config.timeout_ms)


def main(args: argparse.Namespace, console: Console) -> int:
    measure_settings(args)  # every option checked before a target is built (and connected to)
    new_results_file(args.out, "--out", args.force, resume=False)
    if args.report:
        writable_file(args.report, "--report")
    targets = targets_from(args)
    config = config_from(args, targets)
    for target in targets:
        _probe(target, config)
    if args.find_max:
        results = find_max_arena(config, args.slo, console, cells.plans(targets, config))
    else:
        results = run_arena(config, console, cells.plans(targets, config))
        render(results, console)
    results.targets = [describe(t) for t in targets]
    results.save(config.out)
    if args.report:
        console.print(f"report: {report.write_html([report.Source('target', results)], args.report)}")
    return finish(results, console)
