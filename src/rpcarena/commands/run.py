"""`rpcarena run`: measure an arena and print the table."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rpcarena import slo, workloads
from rpcarena.arena import Arena, Plan
from rpcarena.cli import ADDERS, command
from rpcarena.config import RunConfig, parse_duration, parse_ints, parse_names
from rpcarena.contenders import all_contenders
from rpcarena.errors import ArenaError, UsageError
from rpcarena.findmax import find_max
from rpcarena.results import Cell, Results
from rpcarena.table import render

# The quick default arena: about two minutes on 2 cores, every mechanism family.
DEFAULT_CONTENDERS = ["tcp-raw", "grpc-py", "rpyc", "rpyc-tuple", "rest-fastapi",
                      "grpc-go", "rest-go", "grpc-tonic", "rest-warp", "rest-jackson"]
DEFAULT_WORKLOADS = ["usp.distance", "hprpc.large1024", "infobip.items10"]
DEFAULT_CALLS = 500
DEFAULT_WARMUP = "0.5s"


def default_contenders(workload_patterns: list[str]) -> list[str]:
    """Without --contender: every known contender that implements one of the workloads
    (so --workload 'predictions.*' measures the predictions contenders), the floor first."""
    loads = workloads.select(workload_patterns)
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
        warmup_s=parse_duration(DEFAULT_WARMUP if default and args.warmup == "1s" else args.warmup, "--warmup"),
        repeat=args.repeat, pin=args.pin, host=args.host, port=args.port,
        timeout_ms=int(parse_duration(args.timeout, "--timeout") * 1000),
        cell_timeout_s=parse_duration(args.cell_timeout, "--cell-timeout"), sample_limit=args.samples,
        rate_per_s=args.rate, arrival=args.arrival, fail_fast=args.fail_fast, out=Path(args.out),
        redis_url=args.redis, via=args.via, link=args.link)


def run_arena(config: RunConfig, console: Console, todo: list[Plan] | None = None) -> Results:
    """Run with a progress bar (the configuration's cells, or `todo`); return the results."""
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def on_cell(i: int, total: int, plan: Plan, cell: Cell | None) -> None:
            progress.update(task, total=total, completed=i + (cell is not None), description=plan.label)
        arena = Arena(config, on_cell, todo)
        results = arena.run()
    results.extra["failures"] = arena.failures
    return results


def finish(results: Results, console: Console) -> int:
    """Say where the results are; exit non-zero when a cell failed."""
    console.print(f"results: {results.path}")
    failures = results.extra.get("failures", [])
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise ArenaError(f"{len(failures)} cell(s) failed, first: {failures[0]}{more}; "
                         f"the others are kept in {results.path}")
    return 0


def _add_report_option(sub: argparse._SubParsersAction) -> None:
    sub.choices["run"].add_argument("--report", metavar="PATH", help="also write the HTML report here")


ADDERS.append(_add_report_option)


def find_max_arena(config: RunConfig, slo_text: str | None, console: Console,
                   todo: list[Plan] | None = None) -> Results:
    if not slo_text:
        raise UsageError("--find-max needs an objective: add --slo 'p99<5ms'")
    objectives = slo.parse(slo_text)
    with console.status("searching the highest rate that meets the objective"):
        results = find_max(config, objectives, todo=todo)
    render(results, console)
    for answer in results.extra["find_max"]:
        console.print(f"{answer['contender']}<-{answer['client']} {answer['workload']} x{answer['clients']}: "
                      f"max {answer['max_rate_per_s']:,.0f} calls/s meeting {', '.join(answer['slo'])} "
                      f"(closed-loop capacity {answer['capacity_per_s']:,.0f} calls/s)")
    return results


@command("run")
def run_command(args: argparse.Namespace, console: Console) -> int:
    config = config_from(args)
    if args.find_max:
        results = find_max_arena(config, args.slo, console)
    else:
        results = run_arena(config, console)
        render(results, console)
    if args.report:
        from rpcarena import report

        console.print(f"report: {report.write_html([report.Source('run', results)], args.report)}")
    return finish(results, console)
