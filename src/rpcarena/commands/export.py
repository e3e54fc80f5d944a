"""`rpcarena export RESULTS.json --csv out.csv`: one flat row per cell, for spreadsheets and notebooks."""

from __future__ import annotations

import argparse

from rich.console import Console

from rpcarena import results
from rpcarena.errors import UsageError
from rpcarena.report import export

NAME = "export"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", allow_abbrev=False,
                       help="the cells of a results document as CSV or flat JSON rows")
    p.add_argument("results", help="results document")
    p.add_argument("--csv", metavar="PATH", help="write CSV here")
    p.add_argument("--json", metavar="PATH", help="write a JSON list of rows here")




def main(args: argparse.Namespace, console: Console) -> int:
    if not args.csv and not args.json:
        raise UsageError("say where to write: --csv out.csv and/or --json out.json")
    doc = results.load(args.results)
    if args.csv:
        console.print(f"csv: {export.write_csv(doc, args.csv)}")
    if args.json:
        console.print(f"json: {export.write_json(doc, args.json)}")
    return 0
