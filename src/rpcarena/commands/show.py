"""`rpcarena show RESULTS.json`: the answer of a results document again, or its full table, or a document.

`present` is what `run`, `target` and `suite` print after measuring, so a run and a later
`show` of its file print the same thing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TypedDict

from rich.console import Console
from rich.markup import escape

from rpcarena import results, seeds
from rpcarena.commands.options import Subcommands, add_output_options, command
from rpcarena.report import answer, causes, export, headline, searches, stages, terminal, time_goes
from rpcarena.report.findings import findings_table
from rpcarena.results import Results
from rpcarena.suites.findings import findings_of
from rpcarena.suites.model import Finding

NAME = "show"


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "the summary of a results document (or its full table, or JSON, CSV, markdown)",
                "Print what a run printed: the answer in a line per workload, then per workload the contenders "
                "ranked by p50, with p99, calls/s, the ratio to the best and its interval over trials, and the "
                "warnings, a line per cause (-v: each contender's, and the full table), and a suite's findings "
                "after them. --wide prints the full table, one row per cell and trial, with every column the "
                "terminal has room for.",
                ["rpcarena show results/arena.json",
                 "rpcarena show results/arena.json --wide",
                 "rpcarena show results/arena.json --format markdown > answer.md",
                 "rpcarena show results/arena.json --format json | jq '.rankings[0].entries[0]'"], verbose=True)
    p.add_argument("results", help="results document (what run, target or suite wrote)")
    add_output_options(p)


class WarningJson(TypedDict):
    """A kind of warning over the whole answer, as `show --format json` gives it."""

    kind: str
    line: str
    cells: int
    of_cells: int
    details: list[str]


class ShowDocument(TypedDict):
    results: str | None
    headline: list[str]
    rankings: list[answer.RankingJson]
    warnings: list[WarningJson]
    find_max: list[dict[str, Any]]
    time_goes: list[dict[str, Any]]
    cells: list[dict[str, Any]]


def document(doc: Results) -> ShowDocument:
    """The JSON of `--format json`: the headline, the rankings (with each contender's warnings that
    earned their place), the warnings by cause, --find-max's searches, and every cell's row."""
    rankings = answer.rankings(doc)
    return {"results": str(doc.path) if doc.path else None, "headline": headline.headline(rankings),
            "rankings": [r.to_json() for r in rankings],
            "warnings": [{"kind": c.kind, "line": c.line(10_000), "cells": c.cells, "of_cells": c.total_cells,
                          "details": c.details()} for c in causes.causes(rankings)],
            "find_max": [s.to_json() for s in searches.searches(doc)],
            "time_goes": [t.to_json() for t in time_goes.of(rankings, doc)], "cells": export.rows(doc)}


def present(doc: Results, args: argparse.Namespace, console: Console) -> None:
    """The results in the format asked for: the summary (or --wide the table) on the console, or a
    document on stdout."""
    fmt = getattr(args, "format", "table")
    if fmt == "json":
        json.dump(document(doc), sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif fmt == "csv":
        export.csv_to(doc, sys.stdout)
    elif fmt == "markdown":
        sys.stdout.write(terminal.markdown(doc, getattr(args, "wide", False)))
    elif getattr(args, "wide", False):
        terminal.render(doc, console)
    else:
        terminal.summary(doc, console, quiet=getattr(args, "quiet", False), verbose=getattr(args, "verbose", False))
        staged = stages.table(doc)
        if staged is not None:
            console.print(staged)
        if getattr(args, "verbose", False):
            terminal.render(doc, console)
    sys.stdout.flush()


def findings(found: list[Finding], missing: dict[str, str], args: argparse.Namespace, console: Console) -> None:
    """A suite's findings after its answer, as `suite` printed them (in the table format only: the
    documents of the other formats are the cells'), and the systems it could not run."""
    if getattr(args, "format", "table") != "table" or not (found or missing):
        return
    console.print(findings_table(found, getattr(args, "wide", False)))
    for system, why in missing.items():
        console.print(f"[yellow]missing[/]: {escape(system)}: {escape(why)}", highlight=False)


def main(args: argparse.Namespace, console: Console) -> int:
    doc = results.load(args.results)
    present(doc, args, console)
    findings(*findings_of(doc, seeds.SUITES), args, console)  # a suite's document says what `suite` said
    return 0
