"""`rpcarena export RESULTS.json --format csv -o cells.csv`: one flat row per cell, for spreadsheets and notebooks;
`--hgrm DIR`, `--hlog FILE`, `--pyperf FILE`: the histograms for HdrHistogram's tools and pyperf.

Each format of `report.export.FORMATS` is a `--format` value; `--csv PATH` and `--json PATH`
are kept as short forms of `--format csv -o PATH` (both may be given). "-" is stdout.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from rpcarena import results
from rpcarena.commands.options import Subcommands, command, spare_results
from rpcarena.errors import UsageError
from rpcarena.report import export, interop

NAME = "export"


def add(sub: Subcommands) -> None:
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
    p.add_argument("--intervals", metavar="PATH", help="write each cell's intervals as CSV here, a row per second "
                                                       "(--interval): calls/s, errors, p50/p90/p99/max")
    p.add_argument("--hgrm", metavar="DIR", help="write each cell's percentile distribution (HdrHistogram .hgrm, "
                                                 "ms) into this folder, for HdrHistogram's plotter")
    p.add_argument("--hlog", metavar="FILE", help="write an HdrHistogram interval log (each cell's intervals, "
                                                  "tagged) here; - for stdout")
    p.add_argument("--pyperf", metavar="FILE", help="write a pyperf suite (JSON) here, for pyperf compare_to and "
                                                    "pyperf hist; - for stdout")
    p.add_argument("--force", action="store_true", help="write even over a results document")


def outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(format, path) of everything asked for; at most one of them on stdout."""
    asked = [(fmt, path) for fmt in export.FORMATS if (path := getattr(args, fmt, None))]
    others = _interop_asked(args)
    if args.format or args.out or not (asked or others):
        asked.append((args.format or "csv", args.out or export.STDOUT))
    if sum(path == export.STDOUT for _, path in asked + others) > 1:
        raise UsageError("two outputs to stdout (-): give all but one of them a file")
    for fmt, path in asked + others:
        spare_results(path, _option(args, fmt, path), args.force)
    return asked


def _option(args: argparse.Namespace, fmt: str, path: str) -> str:
    """The option that named this output: --csv, --pyperf, ... or -o."""
    return f"--{fmt}" if getattr(args, fmt, None) == path else "-o"


def main(args: argparse.Namespace, console: Console) -> int:
    asked = outputs(args)
    doc = results.load(args.results)
    say = not args.quiet and all(path != export.STDOUT for _, path in asked + _interop_asked(args))
    for fmt, path in asked:
        where = export.write(doc, fmt, path, _option(args, fmt, path), args.force)
        if say:
            console.print(f"{fmt}: {where}", highlight=False)
    _interop(args, doc, console if say else None)
    return 0


def _interop_asked(args: argparse.Namespace) -> list[tuple[str, str]]:
    return [(name, path) for name in ("hlog", "pyperf") if (path := getattr(args, name, None))]


def _interop(args: argparse.Namespace, doc: results.Results, console: Console | None) -> None:
    """The histograms for other tools; `console` None when nothing but the documents may be said."""
    if args.hgrm:
        written = interop.write_hgrm(doc, args.hgrm, args.force)
        if console:
            console.print(f"hgrm: {len(written)} files in {args.hgrm}", highlight=False)
    if args.hlog:
        _text_out("hlog", interop.interval_log(doc), args.hlog, console, args.force)
    if args.pyperf:
        _text_out("pyperf", interop.pyperf_json(doc), args.pyperf, console, args.force)


def _text_out(label: str, text: str, path: str, console: Console | None, force: bool) -> None:
    if path == export.STDOUT:
        sys.stdout.write(text)
        return
    where = interop.write_text(text, path, f"--{label}", force)
    if console:
        console.print(f"{label}: {where}", highlight=False)
