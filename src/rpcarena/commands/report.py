"""`rpcarena report RESULTS.json [...]`: one self-contained HTML page, or the figures as PNG/SVG."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from rich.console import Console

from rpcarena import report, results, seeds
from rpcarena.commands.options import Subcommands, command, spare_results
from rpcarena.errors import UsageError
from rpcarena.suites.findings import findings_of

NAME = "report"


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "HTML report (offline, charts inline) or PNG/SVG figures of results",
                "Draw one self-contained HTML page from one or more results documents (a suite's document "
                "brings its findings), or every figure of it as PNG or SVG files in a folder.",
                ["rpcarena report results/arena.json -o report.html",
                 "rpcarena report before.json after.json -o both.html",
                 "rpcarena report results/arena.json --format svg -o figures/"])
    p.add_argument("results", nargs="+", help="one or more results documents")
    p.add_argument("-o", "--out", help="HTML file, or the folder for png/svg (default: next to the first results)")
    p.add_argument("--format", default="html", help="html (default), png or svg")
    p.add_argument("--trim", action="store_true", help="drop calls below p2 and above p98 (labelled)")
    p.add_argument("--force", action="store_true", help="write the HTML (or a figure) even over a results document")




def sources(paths: list[str]) -> list[report.Source]:
    """Each document as a report source; a suite's document brings its findings."""

    out = []
    for path in paths:
        doc = results.load(path)
        found, missing = findings_of(doc, seeds.SUITES)
        out.append(report.Source(Path(path).stem, doc, found, missing))
    return out


def default_out(first: str, fmt: str) -> Path:
    stem = Path(first).with_suffix("")
    return stem.with_name(stem.name + ".html") if fmt == "html" else stem.with_name(stem.name + "-figures")


def main(args: argparse.Namespace, console: Console) -> int:
    if args.format not in report.FORMATS:
        raise UsageError(f"bad --format {args.format!r}: use one of {', '.join(report.FORMATS)}")
    out = Path(args.out) if args.out else default_out(args.results[0], args.format)
    if args.format == "html":
        spare_results(str(out), "--out", args.force)
    if args.format != "html" and out.suffix.lower() in (".png", ".svg", ".html"):
        raise UsageError(f"-o {out}: --format {args.format} writes one figure per chart into a folder; give a "
                         f"folder, e.g. -o {out.with_suffix('')}-figures/")
    with console.status("drawing the report") if not args.quiet else contextlib.nullcontext():
        docs = sources(args.results)
        if args.format == "html":
            console.print(f"report: {report.write_html(docs, out, args.trim, force=args.force, option='-o')}")
            return 0
        written = report.write_figures(docs, out, args.format, args.trim, args.force)
    console.print(f"{len(written)} figures in {out}")
    return 0
