"""`rpcarena compare A.json B.json`: what changed, with intervals, and whether it is significant."""

from __future__ import annotations

import argparse

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rpcarena import results, thresholds
from rpcarena.analysis import comparison, stats
from rpcarena.commands.options import EXIT_FAILED, EXIT_OK, Subcommands, command

NAME = "compare"
DEFAULT_CHANGE = 0.10  # the change a "not significant" is checked against without --fail-if-slower


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "B/A per cell over trials, with 95%% intervals and significance",
                "Compare two results documents cell by cell, like pyperf compare_to or benchstat: B/A of the "
                f"median and p99 over trials, with Welch's 95% interval (widened by what separate runs differ by "
                f"beyond their trials, {stats.RUN_TO_RUN:.1%}); {stats.MIN_TRIALS} or more trials a side "
                "to call a change significant. With --fail-if-slower, exit 3 when a median is significantly "
                "slower by more than the threshold.",
                ["rpcarena compare before.json after.json",
                 "rpcarena compare before.json after.json --fail-if-slower 5%    # exit 3 on a regression"])
    p.add_argument("before", help="results document A (the baseline)")
    p.add_argument("after", help="results document B")
    p.add_argument("--fail-if-slower", metavar="PCT",
                   help="exit 3 when a median is significantly slower by more than this: a percentage such as "
                        f"5%% or a ratio such as 1.05x, at most {thresholds.MAX_SLOWDOWN:.0%}%; "
                        f"needs --repeat {stats.MIN_TRIALS} or more on both runs")
    p.add_argument("--trim", action="store_true", help="drop calls below p2 and above p98 first")


def _style(change: comparison.Change) -> str:
    if not change.significant:
        return "dim"
    return "red" if change.ratio.above else "green"


SPLIT_BELOW = 110  # columns: narrower, the median and the p99 are two tables, each fitting


def _tables(found: comparison.Comparison, width: int) -> list[Table]:
    """One table of medians and p99s, or one of each below SPLIT_BELOW columns. Each column is at
    least as wide as its longest word: a narrow terminal wraps between words and never cuts a number
    or a verdict ('1,148…', 'signif…' at 80 and 100 columns before)."""
    statistics = [c.statistic for c in found.rows[0].changes] if found.rows else ["median", "p99"]
    groups = [[s] for s in statistics] if width < SPLIT_BELOW else [statistics]
    return [_table(found, chosen) for chosen in groups]


def _table(found: comparison.Comparison, statistics: list[str]) -> Table:
    names = ["cell", "trials A/B"] + [f"{s} {end}" for s in statistics for end in ("A µs", "B µs", "B/A")]
    rows = [_row(row, statistics) for row in found.rows]
    table = Table(title="B against A: B/A over trials (95% interval; 1.10x = B takes 10% longer)",
                  header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for k, name in enumerate(names):
        words = [w for text, _ in [(name, ""), *(r[k] for r in rows)] for w in text.split()]
        table.add_column(name, justify="left" if name == "cell" else "right", overflow="fold",
                         min_width=0 if name == "cell" else max(len(w) for w in words))
    for row in rows:
        table.add_row(*(f"[{style}]{escape(text)}[/]" if style else escape(text) for text, style in row))
    return table


def _row(row: comparison.Row, statistics: list[str]) -> list[tuple[str, str]]:
    """(text, style) of each column of one compared cell."""
    cols = [(row.label, ""), (f"{row.trials[0]}/{row.trials[1]}", "")]
    for change in map(row.change, statistics):
        cols += [(f"{change.before_us:,.1f}", ""), (f"{change.after_us:,.1f}", ""),
                 (change.describe(), _style(change))]
    return cols


def _blind(found: comparison.Comparison, change: float, console: Console) -> None:
    """For each median that is not significant, the smallest change its trials could have caught: a
    "not significant" from noisy trials is no evidence that nothing changed."""
    for row in found.rows:
        ratio = row.change("median").ratio
        detectable, sd = ratio.detectable(), stats.trial_spread(ratio)
        if row.change("median").significant or detectable is None or sd is None:
            continue
        needed = stats.trials_needed(sd, change, ratio.between)
        if needed is not None and needed <= min(row.trials):
            continue
        remedy = (f"catching {change:.0%} takes about --repeat {needed} a side, or trials that differ less (a "
                  "quieter machine)" if needed else
                  f"no number of trials catches {change:.0%}: separate runs differ by {ratio.between:.1%} beyond "
                  "their trials; measure both in one run (two targets of `rpcarena target`) to compare closer")
        console.print(f"[yellow]{row.label}[/]: not significant, and its trials differ by {sd:.0%} (SD), so only a "
                      f"change of {detectable - 1:.0%} or more would be caught 4 times in 5; {remedy}")


def _notes(found: comparison.Comparison, trimmed: bool, change: float | None, console: Console) -> None:
    console.print("[dim]each trial's statistic is one value; A µs and B µs: geometric means over trials[/]")
    if trimmed:
        console.print("[dim]trimmed: calls below p2 and above p98 dropped before comparing[/]")
    unjudged = found.unjudged()
    if unjudged:
        console.print(f"[yellow]{len(unjudged)} of {len(found.rows)} cells have fewer than {stats.MIN_TRIALS} "
                      f"trials on a side[/]: one run cannot show how much the next differs; {stats.CANNOT_TELL}")
    _blind(found, change or DEFAULT_CHANGE, console)
    for side, keys in (("A", found.only_in_a), ("B", found.only_in_b)):
        for key in keys:
            console.print(f"[yellow]only in {side}[/]: {key[0]}<-{key[1]} {key[2]} x{key[3]}")


def main(args: argparse.Namespace, console: Console) -> int:
    threshold = thresholds.slowdown(args.fail_if_slower) if args.fail_if_slower is not None else None
    found = comparison.compare(results.load(args.before), results.load(args.after), args.trim)
    for table in _tables(found, console.width):
        console.print(table)
    _notes(found, args.trim, threshold, console)
    if threshold is None:
        return EXIT_OK
    slow = found.slowdowns(threshold)
    failed = Console(stderr=True, width=console.width)  # a failed gate goes to stderr, as every command's does
    for row in slow:
        failed.print(f"[red]significantly slower by more than {threshold:.0%}[/]: {row.label} "
                     f"median {row.change('median').describe()}")
    if found.unjudged():
        console.print(f"[yellow]--fail-if-slower judged {len(found.rows) - len(found.unjudged())} of "
                      f"{len(found.rows)} cells[/]: the others cannot fail it ({stats.CANNOT_TELL})")
    return EXIT_FAILED if slow else EXIT_OK
