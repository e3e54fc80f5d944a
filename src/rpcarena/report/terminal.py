"""The terminal table of a run: one row per cell, statistics from the histograms."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rpcarena.analysis.floor import floor_of
from rpcarena.results import Cell, Results

COLUMNS = (
    ("contender", "left"), ("client", "left"), ("workload", "left"), ("conc", "right"),
    ("calls", "right"), ("p50 µs", "right"), ("p90", "right"), ("p99", "right"), ("p99.9", "right"),
    ("mean", "right"), ("SD", "right"), ("CV", "right"), ("calls/s", "right"),
    ("cpu µs/call cli", "right"), ("srv", "right"), ("B/call", "right"), ("errors", "right"),
    ("x floor", "right"),
)


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
    if cell.status != "ok" and cell.latency_histogram is None:
        return head + [f"[yellow]{cell.status}[/]: {escape(cell.reason or '')}"] + [""] * (len(COLUMNS) - 5)
    if cell.status != "ok":  # measured, then failed (errors above --max-error-rate): the figures stay
        head[0] = f"[red]{escape(head[0])} (failed)[/]"
    lat = cell.latency
    floor = floor_of(cell, results)
    ratio = lat["p50_us"] / floor.latency["p50_us"] if floor and lat.get("count") else None
    payload = cell.payload_bytes_per_call
    return head + [
        _calls(cell), _num(lat.get("p50_us")), _num(lat.get("p90_us")), _num(lat.get("p99_us")),
        _num(lat.get("p99.9_us")), _num(lat.get("mean_us")), _num(lat.get("sd_us")),
        f"{lat['cv']:.2f}" if "cv" in lat else "-", _num(cell.throughput_per_s, 0),
        _num(cell.client_cpu_us_per_call, 0), _num(cell.server_cpu_us_per_call, 0),
        _num(payload, 0), _errors(cell), f"{ratio:.1f}x" if ratio else "-",
    ]


def render(results: Results, console: Console | None = None, title: str | None = None) -> None:
    console = console or Console()
    table = Table(title=title, show_lines=False, header_style="bold")
    for name, justify in COLUMNS:
        table.add_column(name, justify=justify, no_wrap=name in ("contender", "workload"))
    for cell in results.cells:
        table.add_row(*cell_row(cell, results))
    console.print(table)
    console.print("[dim]calls = verified (/ sent, when some failed); latency from HdrHistograms of verified "
                  "calls only; calls/s, cpu and B per call sent; B/call = TCP payload both ways "
                  "(kernel counters); x floor = p50 over the tcp-raw echo of the same payload and client language[/]")
