"""`rpcarena export RESULTS.json --csv out.csv`: one flat row per cell, for spreadsheets and notebooks;
`--hgrm DIR`, `--hlog FILE`, `--pyperf FILE`: the histograms for HdrHistogram's tools and pyperf."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from rpcarena import results
from rpcarena.errors import UsageError
from rpcarena.report import export, interop

NAME = "export"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", allow_abbrev=False,
                       help="the cells of a results document as CSV or flat JSON rows")
    p.add_argument("results", help="results document")
    p.add_argument("--csv", metavar="PATH", help="write CSV here")
    p.add_argument("--json", metavar="PATH", help="write a JSON list of rows here")
    p.add_argument("--hgrm", metavar="DIR", help="write each cell's percentile distribution (HdrHistogram .hgrm, "
                                                 "ms) into this folder, for HdrHistogram's plotter")
    p.add_argument("--hlog", metavar="FILE", help="write an HdrHistogram interval log (one tagged interval per "
                                                  "cell) here; - for stdout")
    p.add_argument("--pyperf", metavar="FILE", help="write a pyperf suite (JSON) here, for pyperf compare_to and "
                                                    "pyperf hist; - for stdout")




def main(args: argparse.Namespace, console: Console) -> int:
    if not any((args.csv, args.json, args.hgrm, args.hlog, args.pyperf)):
        raise UsageError("say where to write: --csv out.csv, --json out.json, --hgrm DIR, --hlog FILE "
                         "or --pyperf FILE")
    doc = results.load(args.results)
    if args.csv:
        console.print(f"csv: {export.write_csv(doc, args.csv)}")
    if args.json:
        console.print(f"json: {export.write_json(doc, args.json)}")
    _interop(args, doc, console)
    return 0


def _interop(args: argparse.Namespace, doc: results.Results, console: Console) -> None:
    if args.hgrm:
        console.print(f"hgrm: {len(interop.write_hgrm(doc, args.hgrm))} files in {args.hgrm}")
    if args.hlog:
        _text_out("hlog", interop.interval_log(doc), args.hlog, console)
    if args.pyperf:
        _text_out("pyperf", interop.pyperf_json(doc), args.pyperf, console)


def _text_out(label: str, text: str, path: str, console: Console) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        console.print(f"{label}: {interop.write_text(text, path)}")
