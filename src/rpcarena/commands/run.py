"""`rpcarena run`: measure an arena and print the table."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rpcarena import report, seeds
from rpcarena.analysis import slo
from rpcarena.commands.options import DEFAULT_WARMUP, add_cluster_options, add_measure_options
from rpcarena.config import RunConfig, parse_duration, parse_ints, parse_names
from rpcarena.contenders import all_contenders
from rpcarena.errors import ArenaError, UsageError
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.findmax import find_max
from rpcarena.orchestration.plan import Plan
from rpcarena.report.terminal import render
from rpcarena.results import Cell, Results

NAME = "run"

# The quick default arena: about two minutes on 2 cores, every mechanism family.
DEFAULT_CONTENDERS = ["tcp-raw", "grpc-py", "rpyc", "rpyc-tuple", "rest-fastapi",
                      "grpc-go", "rest-go", "grpc-tonic", "rest-warp", "rest-jackson"]
DEFAULT_WORKLOADS = ["usp.distance", "hprpc.large1024", "infobip.items10"]
DEFAULT_CALLS = 500
DEFAULT_ARENA_WARMUP = "0.5s"
DEFAULT_OUT = "results/arena.json"


def default_contenders(workload_patterns: list[str]) -> list[str]:
    """Without --contender: every known contender that implements one of the workloads
    (so --workload 'predictions.*' measures the predictions contenders), the floor first."""
    loads = seeds.select(workload_patterns)
    wanted = DEFAULT_CONTENDERS if workload_patterns == DEFAULT_WORKLOADS else list(all_contenders())
    return [c for c in wanted if c in all_contenders()
            and any(all_contenders()[c].unsupported(w.method) is None for w in loads)]


def config_from(args: argparse.Namespace) -> RunConfig:
    default = args.contender is None and args.workload is None
    duration = parse_duration(args.duration, "--duration")
    calls = args.calls if args.calls is not None else (DEFAULT_CALLS if default and duration is None else None)
    loads = parse_names(args.workload) or DEFAULT_WORKLOADS
    return RunConfig(
        contenders=parse_names(args.contender) or default_contenders(loads),
        workloads=loads,
        clients=parse_ints(args.clients, "--clients"), client_drivers=parse_names(args.client),
        calls=calls, duration_s=duration,
        warmup_s=parse_duration(args.warmup or (DEFAULT_ARENA_WARMUP if default else DEFAULT_WARMUP), "--warmup"),
        repeat=args.repeat, pin=args.pin, host=args.host, port=args.port,
        timeout_ms=int(parse_duration(args.timeout, "--timeout") * 1000),
        cell_timeout_s=parse_duration(args.cell_timeout, "--cell-timeout"), sample_limit=args.samples,
        rate_per_s=args.rate, arrival=args.arrival, fail_fast=args.fail_fast, out=Path(args.out),
        redis_url=args.redis, via=args.via, link=args.link,
        cluster=args.cluster, server_node=args.server_node, client_nodes=parse_names(args.client_nodes))


def run_arena(config: RunConfig, console: Console, todo: list[Plan] | None = None) -> Results:
    """Run with a progress bar (the configuration's contender cells, or `todo`); return the results."""
    todo = todo if todo is not None else contender_cells.plans(config)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def on_cell(i: int, total: int, plan: Plan, cell: Cell | None) -> None:
            progress.update(task, total=total, completed=i + (cell is not None), description=plan.label)
        return Arena(config, todo, on_cell).run()


def finish(results: Results, console: Console) -> int:
    """Say where the results are; exit non-zero when a cell failed."""
    console.print(f"results: {results.path}")
    failures = results.failures
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise ArenaError(f"{len(failures)} cell(s) failed, first: {failures[0]}{more}; "
                         f"the others are kept in {results.path}")
    return 0


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an arena (the quick default one without options)", allow_abbrev=False)
    p.add_argument("--contender", help="comma-separated contender ids (default: the quick arena)")
    p.add_argument("--workload", help="comma-separated workload ids or patterns, e.g. 'usp.*'")
    p.add_argument("--client", help="client drivers, e.g. py,py-requests,go (default: the contender's own)")
    add_measure_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address servers bind to (default loopback)")
    p.add_argument("--port", type=int, default=0, help="server port (default 0: a free one)")
    p.add_argument("--redis", help="a Redis for predictions.* to seed and use (default: start one)")
    p.add_argument("--via", choices=("haproxy",), help="HTTP calls through a fresh HAProxy per cell")
    p.add_argument("--link", metavar="MODEL",
                   help="clients and servers across an emulated link: a preset (lan, wifi, datacenter, "
                        "cloud-cross-region), a rate (100mbit) or 'rtt=40ms,jitter=4ms,loss=0.1%%,rate=100mbit'")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"results file (default {DEFAULT_OUT})")
    add_cluster_options(p)


def find_max_arena(config: RunConfig, slo_text: str | None, console: Console,
                   todo: list[Plan] | None = None) -> Results:
    """--find-max: the highest open-loop rate meeting the objective, for each plan."""
    if not slo_text:
        raise UsageError("--find-max needs an objective: add --slo 'p99<5ms'")
    objectives = slo.parse(slo_text)
    with console.status("searching the highest rate that meets the objective"):
        results = find_max(config, objectives, todo if todo is not None else contender_cells.plans(config))
    render(results, console)
    for answer in results.find_max:
        console.print(f"{answer['contender']}<-{answer['client']} {answer['workload']} x{answer['clients']}: "
                      f"max {answer['max_rate_per_s']:,.0f} calls/s meeting {', '.join(answer['slo'])} "
                      f"(closed-loop capacity {answer['capacity_per_s']:,.0f} calls/s)")
    return results


def main(args: argparse.Namespace, console: Console) -> int:
    config = config_from(args)
    if args.find_max:
        results = find_max_arena(config, args.slo, console)
    else:
        results = run_arena(config, console)
        render(results, console)
    if args.report:
        console.print(f"report: {report.write_html([report.Source('run', results)], args.report)}")
    return finish(results, console)
