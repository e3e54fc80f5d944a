"""`rpcarena compare A.json B.json`: what changed, with intervals, and whether it is significant."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from rpcarena import results
from rpcarena.analysis import comparison

NAME = "compare"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", allow_abbrev=False,
                       help="change per cell from A to B, with 95%% intervals and significance")
    p.add_argument("before", help="results document A (the baseline)")
    p.add_argument("after", help="results document B")
    p.add_argument("--fail-if-slower", metavar="PCT",
                   help="exit 1 when a median is significantly slower by more than this, e.g. 5%%")
    p.add_argument("--trim", action="store_true", help="drop calls below p2 and above p98 first")




def _table(found: comparison.Comparison) -> Table:
    table = Table(title="B against A (change of B over A, 95% bootstrap interval)", header_style="bold")
    for name in ("cell", "median A µs", "median B µs", "median change", "p99 A µs", "p99 B µs", "p99 change"):
        table.add_column(name, justify="left" if name == "cell" else "right")
    for row in found.rows:
        cols = [row.label]
        for change in row.changes:
            style = "dim" if not change.significant else ("red" if change.change.estimate > 0 else "green")
            cols += [f"{change.before_us:,.1f}", f"{change.after_us:,.1f}", f"[{style}]{change.describe()}[/]"]
        table.add_row(*cols)
    return table


def main(args: argparse.Namespace, console: Console) -> int:
    threshold = comparison.parse_threshold(args.fail_if_slower) if args.fail_if_slower else None
    found = comparison.compare(results.load(args.before), results.load(args.after), args.trim)
    console.print(_table(found))
    if args.trim:
        console.print("[dim]trimmed: calls below p2 and above p98 dropped before comparing[/]")
    for side, keys in (("A", found.only_in_a), ("B", found.only_in_b)):
        for key in keys:
            console.print(f"[yellow]only in {side}[/]: {key[0]}<-{key[1]} {key[2]} x{key[3]}")
    if threshold is None:
        return 0
    slow = found.slowdowns(threshold)
    for row in slow:
        console.print(f"[red]significantly slower than {threshold:.0%}[/]: {row.label} "
                      f"median {row.changes[0].describe()}")
    return 1 if slow else 0
