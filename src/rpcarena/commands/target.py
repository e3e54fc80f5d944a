"""`rpcarena target`: benchmark servers rpcarena did not start, side by side, with the arena's method.

Grammar: each target is a run of target options. `--grpc`, `--http` or `--rpyc`
gives its address; the next target begins where an address comes again or where
a single-valued target option (such as --name) is given a second time.
Repeatable options (--var, --header, --metadata, --import-path, --expect-json) add
to the current target. One target may be given positionally instead, as wrk, hey
and ghz take it (http://HOST:PORT/PATH, grpc://HOST:PORT, grpcs://HOST:PORT,
rpyc://HOST:PORT); then every target option describes it. The measurement options
(--calls, --clients, --rate, ...) apply to every target.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeAlias

from rich.console import Console

from rpcarena import report
from rpcarena.cluster import targets as cluster_targets
from rpcarena.commands.options import (
    DEFAULT_WARMUP,
    Subcommands,
    add_cluster_options,
    add_debug_option,
    add_measure_options,
    add_out_options,
    add_output_options,
    add_verbosity,
    judge_thresholds,
    measure_settings,
    new_results_file,
    report_file,
    threshold_gate,
    writable_file,
)
from rpcarena.commands.run import find_max_arena, finish, run_arena
from rpcarena.commands.show import present
from rpcarena.config import RunConfig, parse_duration, parse_names
from rpcarena.errors import UsageError
from rpcarena.files import lock
from rpcarena.report.nodes import node_lines
from rpcarena.results import Results
from rpcarena.target_runner import cells, native
from rpcarena.targets.build import build
from rpcarena.targets.target import Target

NAME = "target"
MAX_VARS = 1_000_000  # distinct rendered requests, all held in memory and sent to every driver
DEFAULT_TIMEOUT = "5s"
# an external server is not pinned by rpcarena: pinning only the clients would crowd them onto
# the CPUs the server may want too (--pin split halved a server's calls/s)
DEFAULT_PIN = "none"
SCHEMES = {"http": "http", "https": "http", "grpc": "grpc", "grpcs": "grpc", "rpyc": "rpyc"}

EPILOG = """\
Each --grpc/--http/--rpyc starts a target; the options after it (and a --name just before it)
describe that target. Templates use {{name}} with --var name=a,b,c | name=range:1:1000 |
name=csv:FILE:COLUMN; all distinct requests (at most --vars-limit) are rendered before measuring.

A cell whose failed calls (wrong answers, timeouts, bad statuses) exceed --max-error-rate
(default 0) fails, and the command exits 3: gate CI on it. --pin defaults to none here: rpcarena
pins no server it did not start, so it pins no client against it either.

example (one HTTP endpoint, as wrk or hey take it):
  rpcarena target http://127.0.0.1:8000/items/1 --expect-json id=1 --clients 1,32

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
    "--server-pid": "pid of the process listening on the target's port: measure its CPU per call and peak RSS",
    "--data-file": "the requests from a file: one JSON document (one request), or JSON lines (one request per line, "
                   "cycled); "
                   "in place of --data, --body or --args",
    "--cacert": "TLS: verify the server with this CA (PEM; default: the system's)",
    "--cert": "TLS: client certificate (PEM) for mTLS, with --key",
    "--key": "TLS: the client certificate's private key (PEM)",
    "--stream-messages": "gRPC streams: replies read before the client ends the stream (default: the server ends it)",
}
FLAGS = {
    "--insecure": "TLS: do not verify the server (as curl -k); gRPC: trust the certificate it presents",
    "--http2": "HTTP: speak HTTP/2 (ALPN over https, prior knowledge over http; h2c with --client go)",
}
REPEATED = {
    "--import-path": "gRPC: a directory .proto imports are found in (repeatable)",
    "--var": "a template variable: NAME=a,b,c | NAME=range:1:1000 | NAME=csv:FILE:COLUMN (repeatable)",
    "--header": "HTTP header 'Name: value' (repeatable, templated)",
    "--metadata": "gRPC metadata 'key: value' sent with every call (repeatable)",
    "--expect-json": "check PATH=VALUE on each reply, dotted path, $ = whole reply; PATH~=[...] a list in "
                     "any order (repeatable, templated)",
}


# one target's options by key (`_key`): its kind and address, a flag True, a repeated option a list
OptionGroup: TypeAlias = dict[str, Any]


def _key(option: str) -> str:
    return option[2:].replace("-", "_")


class TargetOption(argparse.Action):
    """Adds one option to the current target, or starts the next target (see the module's grammar)."""

    def __call__(self, parser: Any, namespace: Any, value: Any, option: Any = None) -> None:
        groups = list(getattr(namespace, "targets", None) or [])
        key, address = _key(option), option in ADDRESSES
        value = True if option in FLAGS else value
        current: OptionGroup | None = groups[-1] if groups else None
        if (current is None or (address and "kind" in current)
                or (not address and option in SINGLE and key in current)):  # the option starts the next target
            current = {}
            groups.append(current)
        if address:
            current["kind"], current["address"] = key, value
        elif option in FLAGS:
            current[key] = True
        elif option in REPEATED:
            current.setdefault(key, []).append(value)
        else:
            current[key] = value
        namespace.targets = groups


def add(sub: Subcommands) -> None:
    p = sub.add_parser("target", help="benchmark your own gRPC, HTTP or RPyC servers, side by side",
                       allow_abbrev=False,
                       description=__doc__.split("\n\n", 1)[1], epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    group = p.add_argument_group("targets")
    group.add_argument("url", nargs="?", metavar="TARGET",
                       help="one target, positionally: http(s)://HOST:PORT/PATH, grpc(s)://HOST:PORT or rpyc://HOST:PORT")
    for table in (ADDRESSES, SINGLE, REPEATED):
        for option, text in table.items():
            group.add_argument(option, action=TargetOption, dest="_" + _key(option), metavar=_metavar(option),
                               help=text, default=argparse.SUPPRESS)
    for option, text in FLAGS.items():
        group.add_argument(option, action=TargetOption, dest="_" + _key(option), nargs=0, help=text,
                           default=argparse.SUPPRESS)
    _add_measure_options(p.add_argument_group("measurement (every target alike)"))
    add_output_options(p)
    add_verbosity(p)
    add_debug_option(p)


def _metavar(option: str) -> str:
    return {"--grpc": "ADDR", "--http": "URL", "--rpyc": "ADDR", "--var": "NAME=VALUES", "--header": "'K: V'",
            "--metadata": "'K: V'", "--expect-json": "PATH=VALUE", "--data-file": "FILE", "--cacert": "FILE",
            "--cert": "FILE", "--key": "FILE"}.get(option, _key(option).upper())


def _add_measure_options(p: argparse._ActionsContainer) -> None:
    add_measure_options(p)
    p.add_argument("--client", default=native.PYTHON,
                   help="who calls: py (default; what a Python caller feels, and RPyC), go (native: full speed, "
                        "gRPC streams, HTTP/2) or rust (native, plain HTTP/1.1 only: as hard as wrk); "
                        "several, e.g. py,go: each measures every target")
    p.add_argument("--vars-limit", type=int, default=10_000,
                   help=f"most distinct rendered requests per target (default 10000, at most {MAX_VARS:,})")
    add_out_options(p, "results/target.json")
    add_cluster_options(p)


def groups_of(args: argparse.Namespace) -> list[OptionGroup]:
    """The targets' option groups; a positional TARGET is the address of the one target."""
    groups = list(getattr(args, "targets", None) or [])
    if args.url is None:
        return groups
    if any("kind" in g for g in groups):
        raise UsageError(f"a positional target ({args.url}) and --grpc/--http/--rpyc: give one target "
                         "positionally, or each with --grpc, --http or --rpyc")
    if len(groups) > 1:
        raise UsageError(f"a positional target is one target, but {_repeated(groups)} is given twice: keep one")
    scheme = args.url.partition("://")[0].lower() if "://" in args.url else ""
    if scheme not in SCHEMES:
        raise UsageError(f"bad target {args.url!r}: write http://HOST:PORT/PATH, https://..., grpc://HOST:PORT, "
                         "grpcs://HOST:PORT or rpyc://HOST:PORT")
    group = dict(groups[0]) if groups else {}
    group["kind"], group["address"] = SCHEMES[scheme], args.url
    return [group]


def _repeated(groups: list[OptionGroup]) -> str:
    """The single-valued option that started a second group."""
    return next((f"--{k.replace('_', '-')}" for k in groups[1] if k in groups[0]), "an option")


def targets_from(args: argparse.Namespace) -> list[Target]:
    """Every target of the command line, built and checked (no call made yet)."""
    groups = groups_of(args)
    if not groups:
        raise UsageError("no target: give at least one --grpc HOST:PORT, --http URL or --rpyc HOST:PORT "
                         "(see rpcarena target --help)")
    if not 1 <= args.vars_limit <= MAX_VARS:
        raise UsageError(f"bad --vars-limit {args.vars_limit}: give 1 to {MAX_VARS:,}")
    timeout_s = setup_timeout_s(args)
    names = _names(groups)
    return [build(group, name, args.vars_limit, timeout_s) for group, name in zip(groups, names)]


def _names(groups: list[OptionGroup]) -> list[str]:
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


def setup_timeout_s(args: argparse.Namespace) -> float:
    """The deadline of what is done before measuring (reflection, the first call): --timeout, but
    never shorter than the default, as the first call also sets up the connection (and TLS)."""
    default = parse_duration(DEFAULT_TIMEOUT, "--timeout") or 0.0
    return max(parse_duration(args.timeout, "--timeout") or default, default)


def config_from(args: argparse.Namespace, targets: list[Target]) -> RunConfig:
    given = dict(measure_settings(args), contenders=[t.id for t in targets], workloads=[t.label for t in targets],
                 client_drivers=_clients(args.client), out=Path(args.out))
    if args.server_node:
        raise UsageError("--server-node places a server rpcarena starts; a target runs where you run it: "
                         "drop --server-node (--client-nodes says which nodes drive)")
    nodes = {"cluster": args.cluster, "client_nodes": parse_names(args.client_nodes, "--client-nodes")}
    given.update({key: value for key, value in nodes.items() if value is not None})
    given.setdefault("warmup_s", parse_duration(DEFAULT_WARMUP, "--warmup"))
    given.setdefault("pin", DEFAULT_PIN)
    return RunConfig(**given)


def _clients(text: str) -> list[str]:
    """`--client py,go`: each client measures every target, a matrix as in `run`."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise UsageError(f"bad --client {text!r}: use one or more of {', '.join(native.client_ids())}, e.g. py,go")
    return [native.check_client(name) for name in dict.fromkeys(names)]


def describe(target: Target, config: RunConfig) -> dict[str, Any]:
    """The target as the results document records it (the schema itself left out)."""
    secure = target.description.get("tls")
    return {"name": target.id, "kind": target.protocol, "address": target.address, "method": target.method,
            "call": target.label, "distinct_requests": len(target.requests), "server_pid": target.server_pid,
            "expect_status": target.description.get("expect_status"), "max_error_rate": config.max_error_rate,
            "tls": None if secure is None else {k: secure.get(k) for k in ("cacert", "cert", "insecure")},
            "http2": target.description.get("http2"),
            "placement": "not pinned by rpcarena (an external server)"}


def _probe(target: Target, config: RunConfig, timeout_s: float) -> None:
    """One checked call before measuring, by each client that will measure (and can call the target)."""
    for client in config.client_drivers or []:
        native.probe_by(target, client, timeout_s, config.max_error_rate or 0.0)


def main(args: argparse.Namespace, console: Console) -> int:
    measure_settings(args)  # every option checked before a target is built (and connected to)
    with lock.held(writable_file(args.out, "--out")):  # one writer per results file
        return _measure(args, console)


def _measure(args: argparse.Namespace, console: Console) -> int:
    out = new_results_file(args.out, "--out", args.force, resume=False)
    if args.report:
        report_file(args.report, out, args.force)
    targets = targets_from(args)
    config = config_from(args, targets)
    for target in targets if not (config.cluster or args.debug_mode) else []:  # a check of the answer, not of speed
        _probe(target, config, setup_timeout_s(args))  # (on a cluster, a node checks: it reaches the target)
    plans = cluster_targets.plans if config.cluster else cells.plans
    if args.find_max:  # its probes go past the rate where calls fail: no gate (`find_max`)
        results = find_max_arena(config, args.slo, console, plans(targets, config), args)
    else:
        results = run_arena(config, console, plans(targets, config), quiet=args.quiet,
                            verbose=args.verbose, terms=threshold_gate(args), debug=args.debug_mode)
        results = replace(results, targets=[describe(t, config) for t in targets])  # ranked across methods
        present(results, args, console)
        if not args.quiet:
            console.print(f"[dim]{_placement(results)}[/]")
            for line in node_lines(results):
                console.print(line, markup=False, highlight=False)
    # rpcarena pins no server it did not start, whatever the policy planned
    unpinned = dict(results.placement, server_cpus=None) if results.placement else results.placement
    results = replace(results, targets=[describe(t, config) for t in targets], placement=unpinned).saved(config.out)
    page = report.write_html([report.Source('target', results)], args.report, force=args.force) if args.report else None
    code = _finish(results, console, config, args.quiet, str(page) if page else None)
    if not args.find_max:  # a search's probes pass the rate where the objective fails, on purpose
        judge_thresholds(results.cells, threshold_gate(args))
    return code


def _placement(results: Results) -> str:
    """Where everything ran, in one line under the table."""
    ran: dict[str, Any] = next((c.placement for c in results.cells if c.placement), {})
    clients, nodes = ran.get("client_cpus"), ran.get("client_nodes")
    if nodes:
        where = f"on nodes {', '.join(nodes)} (each node's CPUs in the results)"
    else:
        where = f"pinned to CPUs {clients}" if clients else f"not pinned (allowed CPUs {ran.get('clients_ran_on')})"
    return f"placement: clients {where}; the targets' servers are not pinned by rpcarena"


def _finish(results: Results, console: Console, config: RunConfig, quiet: bool, page: str | None) -> int:
    """As `run` ends (the same exit codes), but a run that measured nothing (every cell unsupported by
    its client) is bad input, not a success."""
    if results.cells and all(c.status in ("unsupported", "unavailable") for c in results.cells):
        raise UsageError(f"nothing measured: {results.cells[0].reason}")
    return finish(results, console, config.max_error_rate, quiet, page)
