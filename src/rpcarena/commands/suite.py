"""`rpcarena suite NAME`: run a seed's design, write results and a report with its findings."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from rpcarena import report
from rpcarena.cluster import cells as cluster_cells
from rpcarena.cluster.cells import ClusterCells
from rpcarena.commands import show
from rpcarena.commands.options import (
    Subcommands,
    add_cluster_options,
    add_debug_option,
    add_max_error_rate_option,
    add_output_options,
    add_threshold_option,
    command,
    judge_thresholds,
    max_error_rate,
    new_results_file,
    spare_results,
    threshold_gate,
    writable_file,
)
from rpcarena.commands.run import run_arena
from rpcarena.config import RunConfig, parse_names
from rpcarena.errors import UsageError
from rpcarena.files import lock
from rpcarena.orchestration import contender_cells, error_gate
from rpcarena.results import Results
from rpcarena.seeds import SUITES
from rpcarena.suggest import did_you_mean
from rpcarena.suites import rulebook, runner
from rpcarena.suites.findings import findings
from rpcarena.suites.model import Suite

NAME = "suite"


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "run a seed's experiment and report each published claim beside this run",
                "Run one published study's design with every system of it that exists here, on one host and "
                "across an emulated network; print each claim beside what this run measured, with a verdict "
                "and why, then the answer per part; write the results and an HTML report with the findings.",
                ["rpcarena suite usp2018",
                 f"rpcarena suite usp2018 --quick   # {_quick_time(SUITES['usp2018'])} on 2 idle CPUs",
                 "rpcarena suite hprpc2016 --rules   # each claim's rule, without measuring",
                 "rpcarena suite predictions --repeat 5 -o results/predictions.json",
                 "rpcarena suite cs6650 --quick --cluster netns:cloud-cross-region,clients=2"], verbose=True)
    p.add_argument("name", help=f"one of: {', '.join(SUITES)}")
    p.add_argument("--quick", action="store_true",
                   help="only the cells the claims read (3 trials each), with fewer calls (50 a client at least) and "
                        f"concurrency levels; whole, on 2 idle CPUs: {_quick_times()}; far longer on a loaded machine")
    p.add_argument("--rules", action="store_true",
                   help="print every claim with its form, operands, band or margin, setting and family (the cells "
                        "it judges), without measuring")
    p.add_argument("--repeat", type=int, help="independent trials per cell (default: the seed's design)")
    p.add_argument("--connections", type=int, metavar="M",
                   help="every part's clients share M connections (default: the seed's design, one per client)")
    p.add_argument("-o", "--out", help="results file (default results/suite-NAME.json; the report beside it)")
    p.add_argument("--force", action="store_true", help="overwrite the results file if it exists")
    add_max_error_rate_option(p)
    add_threshold_option(p)
    add_cluster_options(p)
    p.add_argument("--trim", action="store_true", help="report with calls below p2 and above p98 dropped")
    add_output_options(p)
    add_debug_option(p)




def _quick_times() -> str:
    """'usp2018 13 min, hprpc2016 about 5 min (estimated), ...': each suite's --quick time, measured whole
    or estimated from its cells (`Suite.quick_minutes`)."""
    return ", ".join(_quick_time(suite, name) for name, suite in SUITES.items())


def _quick_time(suite: Suite, name: str = "") -> str:
    if not suite.quick_minutes:
        return f"{name} not timed".strip()
    if suite.quick_estimated:
        return f"{name} about {suite.quick_minutes:g} min (estimated)".strip()
    return f"{name} {suite.quick_minutes:g} min".strip()


def runnable_parts(suite: Suite, quick: bool, repeat: int | None, out: Path,
                   refuse: runner.Refuse = lambda config: None) -> int:
    """How many parts of the suite have something that can run here (the "of 3" in "part 2 of 3")."""
    return sum(config is not None and not refuse(config) for _, config, _ in runner.configs(suite, quick, repeat, out))


def main(args: argparse.Namespace, console: Console) -> int:
    suite = SUITES.get(args.name)
    if suite is None:
        raise UsageError(f"unknown suite {args.name!r}{did_you_mean(args.name, SUITES)}: use one of "
                         f"{', '.join(SUITES)}")
    if args.rules:
        console.print("\n".join(rulebook.lines(suite)), highlight=False, markup=False, soft_wrap=True)
        return 0
    if args.repeat is not None and args.repeat < 1:
        raise UsageError("bad --repeat: give at least 1 trial")
    out = writable_file(args.out or f"results/suite-{suite.name}.json", "--out")
    with lock.held(out):  # one writer per results file (its parts' files beside it are its own)
        return _run_suite(args, console, suite, out)


def _run_suite(args: argparse.Namespace, console: Console, suite: Suite, out: Path) -> int:
    terms = threshold_gate(args)
    gate = max_error_rate(args)
    new_results_file(str(out), "--out", args.force, resume=False)
    _check_report(out, args.force)
    refuse = _unplaced if args.cluster else (lambda config: None)
    parts = runnable_parts(suite, args.quick, args.repeat, out, refuse)
    done = iter(range(1, parts + 1))
    with _nodes(args, out) as nodes:
        def run_part(config: RunConfig) -> Results:
            if args.connections is not None:
                config = replace(config, connections=args.connections)  # checked against the part's clients
            config = replace(config, **gate)
            config = _on_nodes(config, args, console) if nodes else config
            todo = contender_cells.plans(config, nodes) if nodes else None
            return run_arena(config, console, todo, part=f"part {next(done)} of {parts}", quiet=args.quiet,
                             verbose=args.verbose, terms=terms, debug=args.debug_mode)
        results = runner.run(suite, args.quick, args.repeat, out, run_part, refuse=refuse)
    assert results.suite is not None  # runner.run records the suite it ran
    missing = results.suite["missing"]
    for skipped in (p for p in results.config["parts"] if p.get("skipped") and not args.quiet):
        console.print(f"[yellow]not run[/]: {skipped['title']}: {skipped['skipped']}", highlight=False)
    found = findings(suite, results, missing)
    show.present(results, args, console)
    show.findings(found, missing, args, console)
    page = report.write_html([report.Source(suite.name, results, found, missing)], out.with_suffix(".html"),
                             args.trim, title=f"rpcarena suite {suite.name}: {suite.seed}", force=args.force,
                             option="the report")
    if not args.quiet:
        console.print(f"results: {out}\nreport: {page}")
    code = _done(results, out, gate.get("max_error_rate", 0.0))
    judge_thresholds(results.cells, terms)
    return code


def _nodes(args: argparse.Namespace, out: Path) -> contextlib.AbstractContextManager[ClusterCells | None]:
    """With --cluster, one connection to it (one testbed) for every part; else nothing."""
    if not args.cluster:
        return contextlib.nullcontext(None)
    nodes = RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], out=out)  # only its cluster and out are read
    return cluster_cells.shared(_on_nodes(nodes, args, None))


def _on_nodes(config: RunConfig, args: argparse.Namespace, console: Console | None) -> RunConfig:
    """A part's configuration on the cluster's nodes: the network between the nodes is the one measured
    (netns:MODEL emulates MODEL there), so the part's own link is not added; its claims keep their link
    and are judged only when the nodes' network is it (suites.setting), else they are not comparable."""
    if console is not None and config.link:
        console.print(f"[yellow]note[/]: on --cluster {args.cluster}, this part's cells cross the nodes' network, "
                      f"not --link {config.link}: its claims are judged only if that network is {config.link} "
                      f"(--cluster netns:{config.link},clients=N), else they are not comparable", highlight=False)
    return replace(config, cluster=args.cluster, server_node=args.server_node, link=None,
                   client_nodes=parse_names(args.client_nodes, "--client-nodes"))


def _unplaced(config: RunConfig) -> str | None:
    """Why a part cannot run on a cluster as its seed ran it, or None: a proxy between clients and
    server (infobip2016's HAProxy) is not placed on the nodes, and without it the part would
    measure another system under the seed's name."""
    if config.via:
        return (f"its calls go through {config.via}, which a --cluster run does not place on the nodes; "
                "run the suite without --cluster for this part")
    return None


def _check_report(out: Path, force: bool) -> None:
    """The report goes beside the results, as OUT.html: never over them, nor over another results document."""
    page = out.with_suffix(".html")
    if page.resolve() == out.resolve():
        raise UsageError(f"bad --out {out}: the report goes beside the results as {page}; give the results "
                         f"a name of their own, e.g. {out.with_suffix('.json')}")
    spare_results(str(page), "the report", force)


def _done(results: Results, out: Path, max_error_rate: float) -> int:
    """0, or the error of the failed cells (exit 3 or 1, as `run` ends: `error_gate.exit_error`)."""
    error = error_gate.exit_error(results.cells, results.failures, out, max_error_rate)
    if error is not None:
        raise error
    return 0
