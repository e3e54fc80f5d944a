"""`rpcarena suite NAME`: run a seed's design, write results and a report with its findings."""

from __future__ import annotations

import argparse

from rich.console import Console

from rpcarena import report
from rpcarena.commands.options import new_results_file
from rpcarena.commands.run import run_arena
from rpcarena.errors import ArenaError, UsageError
from rpcarena.report.findings import findings_table
from rpcarena.seeds import SUITES
from rpcarena.suites import runner
from rpcarena.suites.findings import findings

NAME = "suite"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suite", allow_abbrev=False,
                       help="run a seed's experiment and report each published claim beside this run")
    p.add_argument("name", help=f"one of: {', '.join(SUITES)}")
    p.add_argument("--quick", action="store_true", help="fewer calls and concurrency levels: a few minutes")
    p.add_argument("--repeat", type=int, help="independent trials per cell (default: the seed's design)")
    p.add_argument("--out", help="results file (default results/suite-NAME.json; the report beside it)")
    p.add_argument("--force", action="store_true", help="overwrite the results file if it exists")
    p.add_argument("--trim", action="store_true", help="report with calls below p2 and above p98 dropped")


def main(args: argparse.Namespace, console: Console) -> int:
    suite = SUITES.get(args.name)
    if suite is None:
        raise UsageError(f"unknown suite {args.name!r}: use one of {', '.join(SUITES)}")
    if args.repeat is not None and args.repeat < 1:
        raise UsageError("bad --repeat: give at least 1 trial")
    out = new_results_file(args.out or f"results/suite-{suite.name}.json", "--out", args.force, resume=False)
    results = runner.run(suite, args.quick, args.repeat, out, lambda config: run_arena(config, console))
    missing = results.suite["missing"]
    found = findings(suite, results, missing)
    console.print(findings_table(found))
    for system, why in missing.items():
        console.print(f"[yellow]missing[/]: {system}: {why}")
    page = report.write_html([report.Source(suite.name, results, found, missing)], out.with_suffix(".html"),
                             args.trim, title=f"rpcarena suite {suite.name}: {suite.seed}")
    console.print(f"results: {out}\nreport: {page}")
    failures = results.failures
    if failures:
        raise ArenaError(f"{len(failures)} cell(s) failed, first: {failures[0]}; the rest is in {out}")
    return 0
