"""`rpcarena run`: measure an arena and print the table."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from rpcarena import cluster_spec, environment, report, seeds
from rpcarena.analysis import gate, slo
from rpcarena.cluster import cells as cluster_cells
from rpcarena.commands import schema_options
from rpcarena.commands.options import (
    EXIT_OK,
    STDOUT,
    Subcommands,
    aborting,
    add_cluster_options,
    add_debug_option,
    add_measure_options,
    add_out_options,
    add_output_options,
    command,
    judge_thresholds,
    measure_settings,
    new_results_file,
    report_file,
    stdout_file,
    threshold_gate,
    writable_file,
)
from rpcarena.commands.show import present
from rpcarena.config import RunConfig, parse_duration, parse_names
from rpcarena.contenders import all_contenders
from rpcarena.errors import Interrupted, UsageError
from rpcarena.files import inputs, lock
from rpcarena.orchestration import contender_cells, debug_cells, error_gate
from rpcarena.orchestration.arena import Arena, OnCell
from rpcarena.orchestration.context import open_context
from rpcarena.orchestration.findmax import find_max
from rpcarena.orchestration.plan import Plan
from rpcarena.record.intervals import LiveInterval
from rpcarena.report.progress import CellProgress
from rpcarena.results import Cell, Results, ResumedNote, load, now

NAME = "run"

# The quick default arena: three trials of every cell, interleaved (every subject's trial k in turn),
# so each ratio is judged over trials, in about three minutes on 2 cores once built (README.md: "The
# default arena" says why each contender and workload is there). The floor (the tcp-raw echo) of each
# client language it drives with is the reference of that language's mechanisms. RPyC with
# TCP_NODELAY: its default socket waits 40 ms on delayed ACKs, which would be most of the arena's time
# and none of its answer. No JVM: a fresh one is still compiling after the seconds a cell can have.
DEFAULT_CONTENDERS = ["tcp-raw", "grpc-py", "rpyc-nodelay", "rest-fastapi",
                      "tcp-raw-go", "grpc-go", "tcp-raw-rust", "grpc-tonic", "rest-warp"]
DEFAULT_WORKLOADS = ["usp.distance", "hprpc.large1024"]
DEFAULT_CALLS = 1000  # answer.P99_CALLS: p99 rests on 10 calls, no fewer
DEFAULT_ARENA_WARMUP = "0.5s"
DEFAULT_ARENA_REPEAT = 3  # stats.trial_ratio judges nothing with fewer trials a side
DEFAULT_OUT = "results/arena.json"


def default_contenders(workload_patterns: list[str]) -> list[str]:
    """Without --contender: every known contender that implements one of the workloads
    (so --workload 'predictions.*' measures the predictions contenders), the floor first."""
    loads = seeds.select(workload_patterns)
    wanted = DEFAULT_CONTENDERS if workload_patterns == DEFAULT_WORKLOADS else list(all_contenders())
    return [c for c in wanted if c in all_contenders()
            and any(all_contenders()[c].unsupported(w.method) is None for w in loads)]


def plans_of(config: RunConfig) -> list[Plan]:
    """The configuration's cells, measured here, or on a cluster's nodes with --cluster."""
    return cluster_cells.plans(config) if config.cluster else contender_cells.plans(config)


def config_from(args: argparse.Namespace) -> RunConfig:
    """The configuration of the command line: what was typed, RunConfig's defaults for the rest
    (the quick arena's own without --contender and --workload)."""
    given = _typed(args)
    if args.contender is None and args.workload is None:
        given.setdefault("warmup_s", parse_duration(DEFAULT_ARENA_WARMUP, "--warmup"))
        given.setdefault("repeat", DEFAULT_ARENA_REPEAT)
        if "duration_s" not in given:
            given.setdefault("calls", DEFAULT_CALLS)
    loads = given.setdefault("workloads", DEFAULT_WORKLOADS)
    given.setdefault("contenders", default_contenders(loads))
    if given.get("timeout_ms", 1) < 1:  # the native workers' deadline is whole milliseconds
        raise UsageError(f"bad --timeout {args.timeout}: a contender's workers count whole milliseconds; give "
                         "1ms or more (below 1 ms is for `rpcarena target`)")
    return RunConfig(**given, out=Path(DEFAULT_OUT if args.out is None else args.out))


def _typed(args: argparse.Namespace) -> dict[str, Any]:
    """Every option typed on the command line, as RunConfig fields."""
    given = dict(measure_settings(args), contenders=parse_names(args.contender, "--contender"),
                 workloads=parse_names(args.workload, "--workload"),
                 client_drivers=parse_names(args.client, "--client"), host=args.host, port=args.port,
                 redis_url=args.redis, via=args.via, link=args.link, cluster=args.cluster,
                 server_node=args.server_node, client_nodes=parse_names(args.client_nodes, "--client-nodes"))
    given.update(schema_options.given(args))
    return {name: value for name, value in given.items() if value is not None}


def resumed(args: argparse.Namespace) -> tuple[RunConfig, Results, list[Plan]]:
    """--resume FILE: its configuration (refused, with the differences, when the command line
    changes it), its results to add to, and the plans of the cells it lacks."""
    if args.find_max:
        raise UsageError("--resume continues a run of cells; a --find-max search starts afresh: drop one")
    inputs.regular(args.resume, "--resume")  # a FIFO or a folder refused, an empty path too
    doc = load(args.resume)
    path = writable_file(args.resume, "--resume")
    stored = RunConfig.from_json(doc.config, str(path))
    schema_options.rebuild(stored.user_schema)
    config = RunConfig(**dict(_fields(stored), **_typed(args), out=path, fail_fast=args.fail_fast))
    changed = stored.differences(config)
    if changed:
        raise UsageError(f"--resume {path}: this command line measures another configuration "
                         f"({', '.join(changed)}): drop those options, or measure into a new --out")
    doc, failed = _drop_failed(doc, config.max_error_rate)
    done = {_key(c.contender, c.client, c.workload, c.clients, c.trial) for c in doc.cells}
    todo = [p for p in plans_of(config)
            if _key(p.subject.id, p.client, p.workload.id, p.clients, p.trial) not in done]
    note: ResumedNote = {"at": now(), "cells_missing": len(todo), "failed_before": failed,
                         "environment": environment.snapshot()}
    return config, dataclasses.replace(doc, resumed=[*doc.resumed, note]), todo


def _drop_failed(doc: Results, max_error_rate: float | None) -> tuple[Results, list[str]]:
    """Failed cells are measured again, as missing ones are (a failure is often the machine's, not the
    contender's), and so is a cell stored as ok that the gate fails (a document written before it:
    'ok' with no call completed); what they failed with stays in the resumed note: the document
    without them, and what they failed with."""
    stale = {id(c): why for c in doc.cells if c.status == "ok" and (why := error_gate.reason(c, max_error_rate))}
    failed = list(doc.failures) + [f"{c.contender}<-{c.client} {c.workload} x{c.clients}: {stale[id(c)]}"
                                   for c in doc.cells if id(c) in stale]
    kept = [c for c in doc.cells if c.status != "failed" and id(c) not in stale]
    return dataclasses.replace(doc, cells=kept, failures=[]), failed


def _fields(config: RunConfig) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def _key(*parts: object) -> tuple[object, ...]:
    return parts


def run_arena(config: RunConfig, console: Console, todo: list[Plan] | None = None,
              resume: Results | None = None, part: str = "", quiet: bool = False,
              verbose: bool = False, terms: Sequence[gate.Threshold] = (), debug: bool = False) -> Results:
    """Run with progress on stderr (the configuration's contender cells, or `todo`, added to `resume`
    when given); return the results. A `terms` ending ':abort' is judged at each interval the drivers
    say as it closes, and stops the run at the first that fails. `debug`: --debug-mode's made-up cells."""
    todo = todo if todo is not None else plans_of(config)
    todo = debug_cells.plans(todo) if debug else todo
    stderr = Console(stderr=True, width=console.width)
    exposed = cluster_spec.exposure(cluster_spec.parse(config.cluster)) if config.cluster else None
    if exposed:
        stderr.print(f"warning: {exposed}", markup=False, highlight=False, soft_wrap=True)
    with CellProgress(stderr, part, quiet, verbose) as progress:
        told: list[Callable[[LiveInterval], None]] = [progress.on_interval] if progress.live else []
        check = aborting(list(terms))
        return Arena(config, todo, progress, context=debug_cells.context if debug else open_context, results=resume,
                     on_interval=_each([*told, check] if check else told)).run()


def _each(calls: list[Callable[[LiveInterval], None]]) -> Callable[[LiveInterval], None] | None:
    """One callback telling each of `calls` in turn; None for none."""
    if not calls:
        return None

    def tell(live: LiveInterval) -> None:
        for call in calls:
            call(live)
    return tell


def finish(results: Results, console: Console, max_error_rate: float | None, quiet: bool = False,
           page: str | None = None) -> int:
    """Say where the results are, and the report (or the one command that draws it); exit non-zero
    when a cell failed: 3 when every failed cell failed by its failed calls past --max-error-rate,
    else 1 (`error_gate.exit_error`)."""
    if not quiet:
        drawn = f"report: {page}" if page else f"HTML: rpcarena report {results.path}"
        console.print(f"results: {results.path}; {drawn}", highlight=False)
    error = error_gate.exit_error(results.cells, results.failures, results.path, max_error_rate)
    if error is not None:
        raise error
    return EXIT_OK


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "run an arena (the quick default one without options), print its answer",
                "Measure contenders (RPC mechanisms) on workloads: a fresh server per cell, real clients, every "
                "answer checked. Prints per workload the contenders ranked by p50 with p99, calls/s and the ratio "
                "to the best (with its interval over trials: --repeat 3 or more to call it significant), then "
                "the warnings with their fixes. Progress goes to stderr.",
                ["rpcarena run                                     # the quick default arena (about 3 minutes)",
                 "rpcarena run --contender grpc-py,tcp-raw --workload usp.int32 -n 2000 --repeat 3",
                 "rpcarena run --contender grpc-go,grpc-tonic --client py,go -c 1,32 -z 10s",
                 "rpcarena run --contender grpc-go --rate 2000 -z 10s     # open loop",
                 "rpcarena run --contender rest-fastapi --link wifi --format json > answer.json",
                 "rpcarena run --resume results/arena.json          # after Ctrl-C: the missing and failed cells"],
                verbose=True)
    p.add_argument("--contender", help="comma-separated contender ids (default: the quick arena)")
    p.add_argument("--workload", help="comma-separated workload ids or patterns, e.g. 'usp.*'")
    p.add_argument("--client", help="client drivers, e.g. py,py-requests,go (default: the contender's own)")
    add_measure_options(p)
    p.add_argument("--host", help="address servers bind to (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="server port (default 0: a free one)")
    p.add_argument("--redis", help="a Redis for predictions.* to seed and use (default: start one)")
    p.add_argument("--via", choices=("haproxy",), help="HTTP calls through a fresh HAProxy per cell")
    p.add_argument("--link", metavar="MODEL",
                   help="clients and servers across an emulated link: a preset (lan, wifi, datacenter, "
                        "cloud-cross-region), a rate (100mbit) or 'rtt=40ms,jitter=4ms,loss=0.1%%,rate=100mbit'")
    add_out_options(p, DEFAULT_OUT)
    p.set_defaults(out=None)  # told apart from typed: --resume refuses an --out elsewhere
    p.add_argument("--resume", metavar="RESULTS",
                   help="measure the cells RESULTS lacks or that failed in it, with its configuration, into it "
                        "(after Ctrl-C, a kill, a crash or a failed cell); no --out elsewhere")
    add_cluster_options(p)
    add_output_options(p)
    schema_options.add(p)
    add_debug_option(p)


def find_max_arena(config: RunConfig, slo_text: str | None, console: Console,
                   todo: list[Plan] | None = None, args: argparse.Namespace | None = None) -> Results:
    """--find-max: the highest open-loop rate meeting the objective, for each plan."""
    if not slo_text:
        raise UsageError("--find-max needs an objective: add --slo 'p99<5ms'")
    objectives = slo.parse(slo_text)
    quiet = bool(getattr(args, "quiet", False))
    todo = todo if todo is not None else plans_of(config)
    debug = bool(getattr(args, "debug_mode", False))
    with console.status("searching the highest rate that meets the objective"), cluster_cells.held(todo, config):
        results = find_max(config, objectives, debug_cells.plans(todo) if debug else todo,
                           on_cell=None if quiet else _probe_line(console, objectives),
                           context=debug_cells.context if debug else open_context)
    typed = [dict(search, slo_typed=slo_text) for search in results.find_max]  # for show, report, export to say
    results = dataclasses.replace(results, find_max=typed).saved(config.out)
    present(results, args or argparse.Namespace(), console)  # each search's maximum first, then its steps
    return results


def _probe_line(console: Console, objectives: list[slo.Objective]) -> OnCell:
    """A line per --find-max probe as it ends (a search takes minutes): its rate, p99 and verdict."""
    def probed(index: int, total: int, plan: Plan, cell: Cell | None) -> None:
        if cell is None:
            return
        rate = f"{cell.rate_per_s:,.0f} calls/s" if cell.rate_per_s else "closed loop (capacity)"
        p99_us = cell.latency.get("p99_us") if cell.calls else None
        p99 = f"p99 {p99_us / 1000:,.2f} ms" if p99_us is not None else "no calls"
        meets = "meets" if slo.verdict(cell, objectives) else "misses"
        console.print(f"[dim]probe {plan.label} at {rate}: {cell.status}, {p99}, {meets} the objective[/]")
    return probed


def main(args: argparse.Namespace, console: Console) -> int:
    if args.resume is not None:
        _resume_out(args)
    args.out = DEFAULT_OUT if args.out is None else args.out
    args.to_stdout = args.out == STDOUT
    if args.to_stdout:
        args.out = stdout_file()
    with lock.held(writable_file(args.out, "--resume" if args.resume is not None else "--out")):
        code = measure(args, console)
        if args.to_stdout:
            sys.stdout.write(Path(args.out).read_text() + "\n")
            Path(args.out).unlink()
    return code


def _resume_out(args: argparse.Namespace) -> None:
    """--resume writes into the file it resumes: an --out elsewhere is refused, not silently ignored."""
    if args.out is not None and (args.out == STDOUT or Path(args.out).resolve() != Path(args.resume).resolve()):
        raise UsageError(f"--resume {args.resume} adds its cells to that file: drop --out {args.out} (to keep "
                         f"{args.resume} as it is, copy it to {args.out} and resume the copy)")
    args.out = args.resume


def measure(args: argparse.Namespace, console: Console) -> int:
    """Measure under the lock of --out (`main` holds it); a document on stdout is kept in a file of
    this process's own until the end, which no --force is needed for."""
    if args.resume is not None:
        config, doc, todo = resumed(args)
    else:
        config, doc, todo = config_from(args), None, None
        new_results_file(args.out, "--out", args.force or args.to_stdout, resume=not args.find_max)
    if args.report:
        report_file(args.report, config.out, args.force)
    if args.find_max:
        results = find_max_arena(config, args.slo, console, args=args)
    else:
        if todo == []:
            console.print(f"nothing to measure: every cell of {config.out} is there")
        try:
            results = run_arena(config, console, todo, resume=doc, quiet=args.quiet, verbose=args.verbose,
                                terms=threshold_gate(args), debug=args.debug_mode)
        except Interrupted as stop:
            raise stop.but(f"`rpcarena run --resume {config.out}` measures the rest") from None
        present(results, args, console)
    page = report.write_html([report.Source('run', results)], args.report, force=args.force) if args.report else None
    code = finish(results, console, config.max_error_rate, args.quiet or args.to_stdout, str(page) if page else None)
    if not args.find_max:  # a search's probes pass the rate where the objective fails, on purpose
        judge_thresholds(results.cells, threshold_gate(args))
    return code
