"""What a run prints: the answer first (`summary`), the full table on request (`render`).

The summary fits 100 columns: per workload the contenders ranked by p50, a unit on every
number, the best marked, the ratio to it with its interval over trials, and the warnings
below with their fixes. The full table keeps every column the terminal has room for and
names the ones it left out; nothing is cut to "…".
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console, JustifyMethod
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rpcarena.analysis import stats
from rpcarena.analysis.floor import floor_ratio
from rpcarena.report import answer, causes, headline, searches, time_goes
from rpcarena.report.answer import Entry, Ranking, shown_title
from rpcarena.results import Cell, Results

COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (
    ("contender", "left"), ("client", "left"), ("workload", "left"), ("conc", "right"), ("trial", "right"),
    ("calls", "right"), ("p50 µs", "right"), ("p90 µs", "right"), ("p99 µs", "right"), ("p99.9 µs", "right"),
    ("mean µs", "right"), ("SD µs", "right"), ("CV", "right"), ("calls/s", "right"),
    ("cli CPU µs/call", "right"), ("srv CPU µs", "right"), ("B/call", "right"), ("errors", "right"),
    ("x floor", "right"), ("p50 trend", "right"), ("p99 trend", "right"), ("RSS trend", "right"),
    ("msg p50 µs", "right"), ("msg p99 µs", "right"), ("msg/s", "right"),
    ("conns", "right"), ("in flight", "right"), ("conn wait p99 µs", "right"),
)
SHARING_COLUMNS = ("conns", "in flight", "conn wait p99 µs")  # --connections, when a cell has them
STREAM_COLUMNS = ("msg p50 µs", "msg p99 µs", "msg/s")  # per message of a stream, when a cell has them
# The wide table's columns, the first dropped first when the terminal is too narrow for all.
DROP_ORDER = ("conn wait p99 µs", "RSS trend", "p50 trend", "p99 trend",
              "msg p99 µs", "SD µs", "p90 µs", "mean µs", "B/call", "srv CPU µs", "cli CPU µs/call", "p99.9 µs", "CV",
              "x floor", "client", "calls", "calls/s")  # never the cell's name: contender, workload, conc, trial
BEST = "★"
FAILED_MARK = "FAILED (below)"


def duration(us: float | None) -> str:
    """A latency with its unit: '45.2 µs', '1.20 ms', '2.31 s'."""
    if us is None:
        return "-"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms" if us < 1e5 else f"{us / 1e3:.0f} ms"
    return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"


def rate(per_s: float | None) -> str:
    return "-" if per_s is None else f"{per_s:,.0f}/s" if per_s >= 10 else f"{per_s:.1f}/s"


def ratio_text(entry: Entry) -> str:
    """'★ best', '1.82x [1.70, 1.95]', '≈ 1.02x [0.95, 1.10]' (not significantly slower than the best)
    or '1.82x (cannot tell)'; a failed entry's ratio (if any) then 'FAILED' (its reason is said below
    the table)."""
    r = entry.ratio
    if entry.failed is not None:
        return f"{_bounds(r)} {FAILED_MARK}" if r is not None else FAILED_MARK
    if r is None:
        return f"{BEST} best"
    bounds = _bounds(r)
    return bounds if r.interval is None or r.significant else f"{TIED} {bounds}"


TIED = "≈"


def _bounds(r: stats.Ratio) -> str:
    if r.interval is None:
        return f"{r.estimate:.2f}x (cannot tell)"
    return f"{r.estimate:.2f}x [{r.interval.low:.2f}, {r.interval.high:.2f}]"


def errors_text(entry: Entry) -> str:
    if not entry.errors:
        return "0"
    return f"{entry.errors:,} ({entry.errors / (entry.errors + entry.group.calls):.1%})"


FLOOR_HEADER = "× floor"
RATIO_HEADER = "× best p50 [95% CI]"
# The summary's columns that give way, first first, when a terminal is too narrow for all: the floor
# is a reference, and at one client calls/s is about 1/p50; p50 and the ratio are the answer.
SUMMARY_DROPS = (FLOOR_HEADER, "calls/s", "p99")
GAP = 2  # columns between two of the summary's columns


def summary_header(show_errors: bool, show_floor: bool = False) -> list[str]:
    return (["#", "contender", "p50", "p99", "calls/s"] + (["errors"] if show_errors else [])
            + ([FLOOR_HEADER] if show_floor else []) + [RATIO_HEADER])


def summary_cells(entry: Entry, rank: int, show_errors: bool, show_floor: bool = False) -> list[str]:
    """One ranked contender as the summary shows it (every number with its unit)."""
    if not entry.group.calls:  # failed, no call completed: its errors and calls/s sent are its figures
        latencies = ["-", "-"]
    else:
        latencies = [duration(entry.p50_us), answer.NOT_SUPPORTED if entry.p99_us is None else duration(entry.p99_us)]
    return ([str(rank) if entry.failed is None else "-", entry.name, *latencies, rate(entry.throughput_per_s)]
            + ([errors_text(entry)] if show_errors else []) + ([floor_text(entry)] if show_floor else [])
            + [ratio_text(entry)])


def floor_text(entry: Entry) -> str:
    return "-" if entry.x_floor is None else f"{entry.x_floor:.2f}x"


def floor_line(ranking: Ranking) -> str | None:
    """'floor: tcp-raw-rust 53.0 µs, tcp-raw 30.1 µs': what the mechanisms are read against, not ranked."""
    if not ranking.floors:
        return None
    return "floor: " + ", ".join(f"{f.name} {duration(f.p50_us)}" for f in ranking.floors)


@dataclass(frozen=True)
class Layout:
    """The summary's columns at a terminal's width: those shown, and those left out to fit it."""

    show_errors: bool
    left_out: tuple[str, ...] = ()

    def table(self, ranking: Ranking) -> tuple[list[str], list[list[str]]]:
        """(headers, rows) of one ranking with the columns kept."""
        header = summary_header(self.show_errors, bool(ranking.floors))
        rows = [summary_cells(e, i, self.show_errors, bool(ranking.floors)) for i, e in enumerate(ranking.entries, 1)]
        kept = [i for i, h in enumerate(header) if h not in self.left_out]
        return [header[i] for i in kept], [[row[i] for i in kept] for row in rows]

    def width(self, ranking: Ranking) -> int:
        header, rows = self.table(ranking)
        return sum(max(len(text) for text in [h, *(r[i] for r in rows)]) for i, h in enumerate(header)) \
            + GAP * (len(header) - 1)


def layout(rankings: list[Ranking], width: int) -> Layout:
    """The columns every ranking shows at `width`: all of them where they fit, else dropping
    SUMMARY_DROPS in order until the widest ranking fits (a cell never wraps)."""
    shown = Layout(any(e.errors for r in rankings for e in r.entries))
    for drop in SUMMARY_DROPS:
        if all(shown.width(r) <= width for r in rankings):
            break
        shown = Layout(shown.show_errors, (*shown.left_out, drop))
    return shown


def _ranking_table(ranking: Ranking, shown: Layout, width: int) -> Table:
    reference = floor_line(ranking)
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False, padding=(0, GAP - 1, 0, 0),
                  caption=escape(reference) if reference else None, caption_justify="left")
    header, rows = shown.table(ranking)
    fits = shown.width(ranking) <= width  # else (a name too long for any layout) cells fold, never cut
    for name in header:
        table.add_column(name, justify="left" if name in ("contender", RATIO_HEADER) else "right",
                         no_wrap=fits, overflow="fold")
    for entry, row in zip(ranking.entries, rows):
        style = ("bold green" if entry.best else "red" if entry.failed else
                 "dim" if entry.verdict == "not significant" else "")
        table.add_row(*(escape(text) for text in row), style=style)
    return table


# where the time goes: the columns that give way, first first, at a narrow terminal
TIME_GOES_DROPS = ("client CPU/call", "mechanism's server CPU", "server CPU/call", "bytes/call", "handler")


def _time_goes(parts: time_goes.TimeGoes, quiet: bool, console: Console) -> None:
    """Each mechanism's p50 in parts: the handler, the transport (its floor), the mechanism's own;
    the columns that do not fit the console left out and named, no cell ever wrapped."""
    rows = [time_goes.cells(part, duration) for part in parts.parts]
    kept = fitting(list(time_goes.HEADERS), rows, console.width, TIME_GOES_DROPS)
    left_out = [h for i, h in enumerate(time_goes.HEADERS) if i not in kept]
    console.print()
    console.print(f"[bold]{time_goes.TITLE}[/]: {escape(parts.title)}; {escape(parts.workload)}")
    console.print(_time_goes_table(rows, kept, console.width))
    said = parts.notes + ([f"left out at {console.width} columns: {', '.join(left_out)}"] if left_out else [])
    for line in [] if quiet else said:
        console.print(f"[dim]{escape(line)}[/]")


def _time_goes_table(rows: list[list[str]], kept: list[int], width: int) -> Table:
    headers = [time_goes.HEADERS[i] for i in kept]
    shown = [[row[i] for i in kept] for row in rows]
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False,
                  padding=(0, GAP - 1, 0, 0))
    for header, size in zip(headers, _widths(headers, shown, width)):
        folded = "\n".join(textwrap.wrap(header, size)) or header  # between words, never inside one
        table.add_column(folded, justify="left" if header == "contender" else "right", width=size, no_wrap=True)
    for row in shown:
        table.add_row(*(escape(text) for text in row))
    return table


def _widths(headers: list[str], rows: list[list[str]], width: int) -> list[int]:
    """Each column's width: its header and cells on one line where all fit `width`, else each its least
    (`_least`: its headers then wrap between words). rich's own shrinking crops a column instead."""
    natural = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    if sum(natural) + GAP * (len(headers) - 1) <= width:
        return natural
    return [_least(h, [r[i] for r in rows]) for i, h in enumerate(headers)]


def _least(header: str, cells: list[str]) -> int:
    """A column's least width: its longest cell (a cell never wraps) and its header's longest word."""
    return max([len(c) for c in cells] + [len(w) for w in header.split()])


def fitting(headers: list[str], rows: list[list[str]], width: int, drops: tuple[str, ...]) -> list[int]:
    """The indexes of the columns to show at `width`: all where their least widths fit, else leaving
    out `drops` in order (the least width: `_least`; headers wrap between words)."""
    kept = list(range(len(headers)))
    for drop in drops:
        if sum(_least(headers[i], [r[i] for r in rows]) for i in kept) + GAP * (len(kept) - 1) <= width:
            break
        kept.remove(headers.index(drop))
    return kept


def notes(rankings: list[Ranking], shown: Layout | None = None, width: int | None = None) -> list[str]:
    """What the summary's marks mean, each said once, and the columns left out at this width."""
    entries = [e for r in rankings for e in r.entries]
    left_out = shown.left_out if shown else ()
    out = [f"{BEST} best: lowest p50; × best: p50 ÷ the best's, over trials (1.10x: 10% longer)"]
    if any(e.verdict == "not significant" for e in entries):
        out.append(f"{TIED}: not significantly slower than the best (its 95% interval reaches 1)")
    if any(r.floors for r in rankings):
        out.append("floor: the tcp-raw echo, the least a call costs, not ranked"
                   + ("" if FLOOR_HEADER in left_out else "; × floor: p50 ÷ the floor of its client's language"))
    if any(r.apart for r in rankings):
        out.append(f"{answer.MOVED_NO_DATA}: passed references, far fewer bytes than the data: ranked apart")
    if any(e.ratio is not None and not e.ratio.judged for e in entries):
        fewest = min(len(e.group.cells) for e in entries)
        out.append(f"with {fewest} trial{'s' if fewest != 1 else ''} a ratio cannot be called significant "
                   f"({stats.CANNOT_TELL})")
    if any(e.p99_us is None for e in entries) and "p99" not in left_out:
        out.append(answer.P99_REASON_SUITE if any(r.suite for r in rankings) else answer.P99_REASON)
    if left_out:
        out.append(f"left out at {width} columns: {', '.join(left_out)} (a wider terminal, or --wide, shows them)")
    return out


_NUMBER = re.compile(r"\d[\d,.]*\d|\d")


def warnings_of(ranking: Ranking) -> list[tuple[str, str]]:
    """(contenders, warning) of one ranking. Texts that differ only in their numbers are said once,
    with every contender's name and their numbers in that order: 'high CV 3.62/1.04: ...'."""
    said: dict[str, list[tuple[str, str]]] = {}
    for entry in ranking.entries:
        for text in (d.text for d in entry.warnings):
            said.setdefault(_NUMBER.sub("#", text), []).append((entry.name, text))
    return [(", ".join(n for n, _ in found), _merged([t for _, t in found])) for found in said.values()]


def _merged(texts: list[str]) -> str:
    """The first text, each of its numbers replaced by that place's values in all texts (one if all agree)."""
    values = [_NUMBER.findall(t) for t in texts]
    slots = iter([[v[i] for v in values] if len({v[i] for v in values}) > 1 else [values[0][i]]
                  for i in range(len(values[0]))])
    return _NUMBER.sub(lambda match: "/".join(next(slots)), texts[0])


def warning_lines(rankings: list[Ranking]) -> list[str]:
    """'usp.int32, 1 client: grpc-py: high CV 1.31: ...', one line per warning."""
    return [f"{r.title()}: {who}: {text}" for r in rankings for who, text in warnings_of(r)]


def _warnings_table(rankings: list[Ranking]) -> Table | None:
    """Each contender's warnings in full (-v), under its ranking's title."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="yellow")
    grid.add_column(overflow="fold")
    for ranking in rankings:
        found = warnings_of(ranking)
        if found and len(rankings) > 1:
            grid.add_row("", f"[bold]{escape(shown_title(ranking.title()))}[/]")
        for who, text in found:
            grid.add_row("!", f"[bold]{escape(who)}[/]: {escape(text)}")
    return grid if grid.row_count else None


def _causes(rankings: list[Ranking], console: Console, verbose: bool) -> None:
    """The warnings: one line per cause (the detail with -v: each contender's sentence)."""
    found = causes.causes(rankings)
    if not found:
        return
    if verbose:
        console.print("[bold yellow]warnings[/]:")
        console.print(_warnings_table(rankings))
        return
    console.print("[bold yellow]warnings[/] (one line per cause; -v: each contender's):")
    for cause in found:
        console.print(hanging("! ", cause.line(console.width - 2), "yellow"))


def hanging(mark: str, text: str | Text, style: str = "") -> Table:
    """`text` after `mark`, its wrapped lines indented under its first word (never split in one; a
    word wider than the whole line alone is folded). A `str` is printed as it is, a `Text` keeps its styles."""
    grid = Table.grid()
    grid.add_column(style=style, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(mark, Text(text) if isinstance(text, str) else text)
    return grid


def _headline(rankings: list[Ranking], console: Console) -> None:
    """The answer in a few lines, before the rankings it sums up."""
    lines = headline.headline(rankings)
    if not lines:
        return
    console.print(f"[bold]{escape(lines[0])}[/]")
    for line in lines[1:]:
        title, _, said = line.partition(": ")
        console.print(hanging("  ", f"{title}: {said}" if said else line))


def summary(results: Results, console: Console, quiet: bool = False, verbose: bool = False) -> None:
    """The answer: its headline, one ranked table per workload, concurrency and network, then notes
    and warnings; for a --find-max document, the maximum of each search and its steps."""
    if results.find_max:
        searched(results, console)
        return
    rankings = answer.rankings(results)
    shown = layout(rankings, console.width)
    _headline(rankings, console)
    for ranking in rankings:
        console.print()
        console.print(f"[bold]{escape(shown_title(ranking.title()))}[/]")
        console.print(_ranking_table(ranking, shown, console.width))
    if rankings:
        console.print()
    for line in [] if quiet else notes(rankings, shown, console.width):
        console.print(f"[dim]{escape(line)}[/]")
    for parts in time_goes.of(rankings, results):
        _time_goes(parts, quiet, console)
    _causes(rankings, console, verbose)
    for line in answer.failed(rankings):
        console.print(f"[red]failed[/]: {escape(line)}")
    for line in answer.not_measured(results):
        console.print(f"[yellow]not measured[/]: {escape(line)}")


def searched(results: Results, console: Console) -> None:
    """--find-max: each search's maximum with its objective as typed and its spread over trials, then
    its steps (the probes: one search, not contenders)."""
    found = searches.searches(results)
    console.print("[bold]answer, the highest rate meeting the objective:[/]")
    for search in found:
        console.print(hanging("  ", search.said()))
    for search in found:
        console.print()
        console.print(f"[bold]{escape(search.name)} {escape(search.workload)} x{search.clients}[/]: the search's steps")
        console.print(_steps_table(search))


def _steps_table(search: searches.Search) -> Table:
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False, padding=(0, GAP - 1, 0, 0))
    several = len(search.steps) > 1
    for name in (["trial"] if several else []) + ["step", "offered", "calls/s", "p99", "objective"]:
        table.add_column(name, justify="right" if name != "objective" else "left", no_wrap=True)
    for k, steps in enumerate(search.steps, 1):
        for n, step in enumerate(steps, 1):
            table.add_row(*([str(k)] if several else []), str(n), rate(step.rate_per_s), rate(step.calls_per_s),
                          duration(step.p99_us), "meets" if step.meets else "misses")
    return table


def markdown(results: Results, wide: bool = False) -> str:
    """The summary as GitHub markdown tables, warnings as a list; `wide`: the full table, every column."""
    if wide:
        shown = len(COLUMNS) - (0 if any(c.connections is not None for c in results.cells) else len(SHARING_COLUMNS))
        return _md_table([n for n, _ in COLUMNS[:shown]], [cell_row(c, results)[:shown] for c in results.cells]) + "\n"
    if results.find_max:
        return _md_searches(searches.searches(results))
    rankings = answer.rankings(results)
    show_errors = any(e.errors for r in rankings for e in r.entries)
    head = headline.headline(rankings)
    parts = [f"**{head[0]}**\n\n" + "\n".join(f"- {line}" for line in head[1:])] if head else []
    for ranking in rankings:
        reference = floor_line(ranking)
        header = summary_header(show_errors, bool(reference))
        rows = [summary_cells(e, i, show_errors, bool(reference)) for i, e in enumerate(ranking.entries, 1)]
        parts.append(f"### {ranking.title()}\n\n" + _md_table(header, rows) + (f"\n\n{reference}" if reference else ""))
    for found in time_goes.of(rankings, results):
        rows = [time_goes.cells(part, duration) for part in found.parts]
        parts.append(f"### {time_goes.TITLE}: {found.title}\n\n{found.workload}\n\n"
                     + _md_table(list(time_goes.HEADERS), rows) + "\n\n" + " ".join(found.notes))
    parts += ["\n".join(f"- {line}" for line in notes(rankings))]
    lines = warning_lines(rankings)
    if lines:
        parts.append("**warnings**\n\n" + "\n".join(f"- {line}" for line in lines))
    if answer.failed(rankings):
        parts.append("**failed**\n\n" + "\n".join(f"- {line}" for line in answer.failed(rankings)))
    return "\n\n".join(parts) + "\n"


def _md_searches(found: list[searches.Search]) -> str:
    """--find-max as markdown: each search's maximum, then its steps."""
    parts = ["**answer, the highest rate meeting the objective:**\n\n" + "\n".join(f"- {s.said()}" for s in found)]
    for search in found:
        rows = [[str(k), str(n), rate(step.rate_per_s), rate(step.calls_per_s), duration(step.p99_us),
                 "meets" if step.meets else "misses"] for k, steps in enumerate(search.steps, 1)
                for n, step in enumerate(steps, 1)]
        parts.append(f"### {search.name} {search.workload} x{search.clients}: the search's steps\n\n"
                     + _md_table(["trial", "step", "offered", "calls/s", "p99", "objective"], rows))
    return "\n\n".join(parts) + "\n"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    return "\n".join([line(header), "|" + "---|" * len(header)] + [line(r) for r in rows])


def _num(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}" if isinstance(value, float) else f"{value:,}"


def _errors(cell: Cell) -> str:
    if not cell.errors:
        return "0"
    return ", ".join(f"{kind} {n}" for kind, n in sorted(cell.errors.items()))


def _calls(cell: Cell) -> str:
    """Verified calls, and out of how many sent when some failed."""
    return _num(cell.calls) if not cell.errors else f"{cell.calls:,}/{cell.calls_sent:,}"


def cell_row(cell: Cell, results: Results) -> list[str]:
    name = f"{cell.contender} ({cell.setting})" if cell.setting else cell.contender
    head = [name, cell.client, cell.workload, str(cell.clients), str(cell.trial + 1)]  # trials from 1, as the README
    if cell.status != "ok" and not cell.calls_sent:
        return head + [f"{cell.status}: {cell.reason or ''}"] + [""] * (len(COLUMNS) - 6)
    if cell.status != "ok":  # made its calls, then failed (errors above --max-error-rate): the figures stay
        head[0] = f"{head[0]} (failed)"
    lat = cell.latency
    ratio = floor_ratio(cell, results)
    payload = cell.payload_bytes_per_call
    return head + [
        _calls(cell), _num(lat.get("p50_us")), _num(lat.get("p90_us")), _num(lat.get("p99_us")),
        _num(lat.get("p99.9_us")), _num(lat.get("mean_us")), _num(lat.get("sd_us")),
        f"{lat['cv']:.2f}" if "cv" in lat else "-", _num(cell.throughput_per_s, 0),
        _num(cell.client_cpu_us_per_call, 0), _num(cell.server_cpu_us_per_call, 0),
        _num(payload, 0), _errors(cell), f"{ratio:.1f}x" if ratio else "-", *trend_texts(cell),
        _num(cell.message_latency.get("p50_us")), _num(cell.message_latency.get("p99_us")),
        _num(cell.messages_per_s, 0), *_sharing(cell),
    ]


def trend_texts(cell: Cell) -> list[str]:
    """p50, p99 and the server's RSS across the intervals: '+12 µs/min (±3)', 'flat', or '-' (too few)."""
    fits = cell.trends
    return [fits[key].said(unit, scale) if key in fits else "-"
            for key, unit, scale in (("p50_us", "µs", 1.0), ("p99_us", "µs", 1.0), ("server_rss_bytes", "MB", 1e-6))]


def _sharing(cell: Cell) -> list[str]:
    """--connections: the connections shared, the calls in flight at once (max/mean), the wait for one."""
    if cell.connections is None:
        return ["-", "-", "-"]
    inflight = f"{cell.inflight_max}/{cell.inflight_mean:.1f}" if cell.inflight_mean is not None else "-"
    return [str(cell.connections), inflight, _num(cell.conn_wait.get("p99_us"))]


def _absent(rows: list[list[str]]) -> set[str]:
    """The columns no row has a value in: streams, shared connections, trials beyond the first."""
    names = [n for n, _ in COLUMNS]
    streams = any(r[names.index("msg/s")] not in ("", "-") for r in rows)
    shared = any(r[names.index("conns")] not in ("", "-") for r in rows)
    trials = any(r[names.index("trial")] != "1" for r in rows)
    return (set() if streams else set(STREAM_COLUMNS)) | (set() if shared else set(SHARING_COLUMNS)) | (
        set() if trials else {"trial"})


def fitting_columns(rows: list[list[str]], width: int) -> list[int]:
    """The indexes of COLUMNS to show: all that fit in `width`, dropping in DROP_ORDER."""
    names = [n for n, _ in COLUMNS]
    widths = [max([len(n)] + [len(r[i]) for r in rows if r[i] and not r[i].startswith(("unavailable", "failed",
                                                                                       "unsupported"))])
              for i, n in enumerate(names)]
    kept = [i for i, n in enumerate(names) if n not in _absent(rows)]
    for drop in DROP_ORDER:
        if sum(widths[i] + 3 for i in kept) + 1 <= width:
            break
        if names.index(drop) in kept:
            kept.remove(names.index(drop))
    return kept


def render(results: Results, console: Console | None = None, title: str | None = None) -> None:
    """The full table, one row per cell, with every column that fits the console's width."""
    console = console or Console()
    rows = [cell_row(cell, results) for cell in results.cells]
    kept = fitting_columns(rows, console.width)
    table = Table(title=title, show_lines=False, header_style="bold", box=box.SIMPLE_HEAD, show_edge=False)
    for i in kept:
        name, justify = COLUMNS[i]
        table.add_column(name, justify=justify, overflow="fold")
    for row in rows:
        table.add_row(*(escape(row[i]) for i in kept))
    console.print(table)
    streams = any(cell.messages for cell in results.cells)
    shared = any(cell.connections is not None for cell in results.cells)
    left_out = [name for i, (name, _) in enumerate(COLUMNS) if i not in kept and name not in _absent(rows)]
    if left_out:
        console.print(f"[dim]left out at {console.width} columns: {', '.join(left_out)}; a wider terminal "
                      "shows them, --format csv has every one[/]")
    console.print("[dim]calls = verified (/ sent, when some failed); latency from HdrHistograms of verified "
                  "calls only; calls/s, cpu and B per call sent; B/call = TCP payload both ways "
                  "(kernel counters); x floor = p50 over the tcp-raw echo of the same payload and client language"
                  + ("; msg = per message of a stream" if streams else "")
                  + ("; conns = connections the clients shared (--connections), in flight = calls at once, max/mean; "
                     "conn wait = a call's wait for a free connection (pools only)" if shared else "") + "[/]")
