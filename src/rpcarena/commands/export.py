"""`rpcarena export RESULTS.json --format csv -o cells.csv`: one flat row per cell, for spreadsheets and notebooks.

Each format of `report.export.FORMATS` is a `--format` value; `--csv PATH` and `--json PATH`
are kept as short forms of `--format csv -o PATH` (both may be given). "-" is stdout.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from rpcarena import results
from rpcarena.commands.options import command
from rpcarena.errors import UsageError
from rpcarena.report import export

NAME = "export"


def add(sub: argparse._SubParsersAction) -> None:
    p = command(sub, NAME, "the cells of a results document as CSV or flat JSON rows, with their warnings",
                "One row per cell with every statistic recomputed from its histograms (units in the column "
                "names) and a warnings column (the reasons not to trust a number, '; '-separated in CSV, "
                "a list in JSON).",
                ["rpcarena export results/arena.json --format csv -o cells.csv",
                 "rpcarena export results/arena.json --format json | jq '.[0].warnings'",
                 "rpcarena export results/arena.json --csv cells.csv --json cells.json",
                 "rpcarena export results/arena.json --csv - | column -s, -t"])
    p.add_argument("results", help="results document")
    p.add_argument("--format", choices=tuple(export.FORMATS), help="the format to write to -o (default csv)")
    p.add_argument("-o", "--out", metavar="PATH", help="where --format goes (default -, stdout)")
    p.add_argument("--csv", metavar="PATH", help="write CSV here (- for stdout)")
    p.add_argument("--json", metavar="PATH", help="write a JSON list of rows here (- for stdout)")


def outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(format, path) of everything asked for; at most one of them on stdout."""
    asked = [(fmt, path) for fmt in export.FORMATS if (path := getattr(args, fmt, None))]
    if args.format or args.out or not asked:
        asked.append((args.format or "csv", args.out or export.STDOUT))
    if sum(path == export.STDOUT for _, path in asked) > 1:
        raise UsageError("two outputs to stdout (-): give all but one of them a file")
    return asked


def main(args: argparse.Namespace, console: Console) -> int:
    asked = outputs(args)
    doc = results.load(args.results)
    say = not args.quiet and all(path != export.STDOUT for _, path in asked)  # stdout: the document alone
    for fmt, path in asked:
        where = export.write(doc, fmt, path)
        if say:
            console.print(f"{fmt}: {where}", highlight=False)
    return 0
