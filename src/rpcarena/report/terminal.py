"""What a run prints: the answer first (`summary`), the full table on request (`render`).

The summary fits 100 columns: per workload the contenders ranked by p50, a unit on every
number, the best marked, the ratio to it with its interval over trials, and the warnings
below with their fixes. The full table keeps every column the terminal has room for and
names the ones it left out; nothing is cut to "…".
"""

from __future__ import annotations

import re
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rpcarena.analysis import stats
from rpcarena.analysis.floor import floor_ratio
from rpcarena.report import answer, time_goes
from rpcarena.report.answer import Entry, Ranking, shown_title
from rpcarena.results import Cell, Results

COLUMNS = (
    ("contender", "left"), ("client", "left"), ("workload", "left"), ("conc", "right"),
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
              "x floor", "client", "calls")
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
    """'best', '1.82x [1.70, 1.95]', '1.02x [0.95, 1.10] not significant' or '1.82x (cannot tell)';
    a failed entry's ratio (if any) then 'FAILED' (its reason is said below the table)."""
    r = entry.ratio
    if entry.failed is not None:
        return f"{_bounds(r)} {FAILED_MARK}" if r is not None else FAILED_MARK
    if r is None:
        return f"{BEST} best"
    bounds = _bounds(r)
    return bounds if r.interval is None or r.significant else f"{bounds} not significant"


def _bounds(r: stats.Ratio) -> str:
    if r.interval is None:
        return f"{r.estimate:.2f}x (cannot tell)"
    return f"{r.estimate:.2f}x [{r.interval.low:.2f}, {r.interval.high:.2f}]"


def errors_text(entry: Entry) -> str:
    if not entry.errors:
        return "0"
    return f"{entry.errors:,} ({entry.errors / (entry.errors + entry.group.calls):.1%})"


def summary_header(show_errors: bool, show_floor: bool = False) -> list[str]:
    return (["#", "contender", "p50", "p99", "calls/s"] + (["errors"] if show_errors else [])
            + (["× floor"] if show_floor else []) + ["× best p50 [95% CI]"])


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


def _ranking_table(ranking: Ranking, show_errors: bool) -> Table:
    reference = floor_line(ranking)
    table = Table(title=f"[bold]{escape(shown_title(ranking.title()))}[/]", title_justify="left", box=box.SIMPLE_HEAD,
                  header_style="bold", pad_edge=False, caption=escape(reference) if reference else None,
                  caption_justify="left")
    for header in summary_header(show_errors, bool(reference)):
        table.add_column(header, justify="left" if header in ("contender", "× best p50 [95% CI]") else "right",
                         overflow="fold")
    for rank, entry in enumerate(ranking.entries, 1):
        style = ("bold green" if entry.best else "red" if entry.failed else
                 "dim" if entry.verdict == "not significant" else "")
        table.add_row(*(escape(text) for text in summary_cells(entry, rank, show_errors, bool(reference))),
                      style=style)
    return table


def _time_goes_table(parts: time_goes.TimeGoes, quiet: bool) -> Table:
    """Each mechanism's p50 in parts: the handler, the transport (its floor), the mechanism's own."""
    said = "\n".join(parts.notes)
    table = Table(title=f"[bold]{time_goes.TITLE}[/]: {escape(parts.title)}; {escape(parts.workload)}",
                  title_justify="left", box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False,
                  caption=None if quiet else f"[dim]{escape(said)}[/]", caption_justify="left")
    for header in time_goes.HEADERS:
        table.add_column(header, justify="left" if header == "contender" else "right", overflow="fold")
    for part in parts.parts:
        table.add_row(*(escape(text) for text in time_goes.cells(part, duration)))
    return table


def notes(rankings: list[Ranking]) -> list[str]:
    """What the summary's marks mean, each said once."""
    entries = [e for r in rankings for e in r.entries]
    out = [f"{BEST} best = lowest p50; × best = p50 over the best's, over trials (1.10x = takes 10% longer)"]
    if any(r.floors for r in rankings):
        out.append("floor = the tcp-raw byte echo, the least a call can cost, not an RPC mechanism: a reference, "
                   "not ranked; × floor = p50 over the floor of the client's language")
    if any(r.apart for r in rankings):
        out.append(f"{answer.MOVED_NO_DATA}: calls that moved far fewer bytes than the workload's data "
                   "(references, not copies), ranked apart")
    if any(e.ratio is not None and not e.ratio.judged for e in entries):
        fewest = min(len(e.group.cells) for e in entries)
        out.append(f"with {fewest} trial{'s' if fewest != 1 else ''} a ratio cannot be called significant "
                   f"({stats.CANNOT_TELL})")
    if any(e.p99_us is None for e in entries):
        out.append(answer.P99_REASON)
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


def summary(results: Results, console: Console, quiet: bool = False) -> None:
    """The answer: one ranked table per workload, concurrency and network, then notes and warnings."""
    rankings = answer.rankings(results)
    show_errors = any(e.errors for r in rankings for e in r.entries)
    for ranking in rankings:
        console.print(_ranking_table(ranking, show_errors))
    for line in [] if quiet else notes(rankings):
        console.print(f"[dim]{escape(line)}[/]")
    for parts in time_goes.of(rankings, results):
        console.print(_time_goes_table(parts, quiet))
    found = _warnings_table(rankings)
    if found is not None:
        console.print("[bold yellow]warnings[/]:")
        console.print(found)
    for line in answer.failed(rankings):
        console.print(f"[red]failed[/]: {escape(line)}")
    for line in answer.not_measured(results):
        console.print(f"[yellow]not measured[/]: {escape(line)}")


def markdown(results: Results, wide: bool = False) -> str:
    """The summary as GitHub markdown tables, warnings as a list; `wide`: the full table, every column."""
    if wide:
        shown = len(COLUMNS) - (0 if any(c.connections is not None for c in results.cells) else len(SHARING_COLUMNS))
        return _md_table([n for n, _ in COLUMNS[:shown]], [cell_row(c, results)[:shown] for c in results.cells]) + "\n"
    rankings = answer.rankings(results)
    show_errors = any(e.errors for r in rankings for e in r.entries)
    parts = []
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
    head = [name, cell.client, cell.workload, str(cell.clients)]
    if cell.status != "ok" and not cell.calls_sent:
        return head + [f"{cell.status}: {cell.reason or ''}"] + [""] * (len(COLUMNS) - 5)
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


def fitting_columns(rows: list[list[str]], width: int) -> list[int]:
    """The indexes of COLUMNS to show: all that fit in `width`, dropping in DROP_ORDER."""
    names = [n for n, _ in COLUMNS]
    widths = [max([len(n)] + [len(r[i]) for r in rows if r[i] and not r[i].startswith(("unavailable", "failed",
                                                                                       "unsupported"))])
              for i, n in enumerate(names)]
    streams = any(r[names.index("msg/s")] not in ("", "-") for r in rows)
    shared = any(r[names.index("conns")] not in ("", "-") for r in rows)
    kept = [i for i, n in enumerate(names)
            if (streams or n not in STREAM_COLUMNS) and (shared or n not in SHARING_COLUMNS)]
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
    left_out = [name for i, (name, _) in enumerate(COLUMNS) if i not in kept
                and (streams or name not in STREAM_COLUMNS) and (shared or name not in SHARING_COLUMNS)]
    if left_out:
        console.print(f"[dim]left out at {console.width} columns: {', '.join(left_out)}; a wider terminal "
                      "shows them, --format csv has every one[/]")
    console.print("[dim]calls = verified (/ sent, when some failed); latency from HdrHistograms of verified "
                  "calls only; calls/s, cpu and B per call sent; B/call = TCP payload both ways "
                  "(kernel counters); x floor = p50 over the tcp-raw echo of the same payload and client language"
                  + ("; msg = per message of a stream" if streams else "")
                  + ("; conns = connections the clients shared (--connections), in flight = calls at once, max/mean; "
                     "conn wait = a call's wait for a free connection (pools only)" if shared else "") + "[/]")
