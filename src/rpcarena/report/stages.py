"""The figures of each `--rate` stage (k6's ramping arrival rate), one row per stage of a cell.

A cell measured in stages is ranked by its whole phase; this table keeps each stage apart, so a
latency that climbs with the rate, or a driver that falls behind only at the highest stage, shows.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from rpcarena.record import hist
from rpcarena.report.terminal import duration, rate
from rpcarena.results import Cell, Results

HEADER = ("contender", "workload", "client", "clients", "stage", "rate", "for", "calls", "calls/s", "p50", "p99",
          "uncorrected p50", "schedule lag p50")


def rows(results: Results) -> list[list[str]]:
    """A row per stage of every cell measured in stages (none without --rate stages)."""
    return [_row(cell, k, stage) for cell in results.cells for k, stage in enumerate(cell.stages, 1)]


def table(results: Results) -> Table | None:
    found = rows(results)
    if not found:
        return None
    out = Table(title="[bold]--rate stages[/]", title_justify="left", box=box.SIMPLE_HEAD, header_style="bold",
                pad_edge=False)
    for name in HEADER:
        out.add_column(name, justify="left" if name in ("contender", "workload", "client") else "right")
    for row in found:
        out.add_row(*row)
    return out


def _row(cell: Cell, k: int, stage: dict[str, Any]) -> list[str]:
    calls, seconds = stage.get("calls", 0), stage["duration_s"]
    return [cell.contender, cell.workload, cell.client, str(cell.clients), str(k), rate(stage["rate_per_s"]),
            f"{seconds:g}s", f"{calls:,}", rate(calls / seconds), *(duration(_us(stage.get(key), q)) for key, q in (
                ("latency_histogram", 50.0), ("latency_histogram", 99.0),
                ("latency_uncorrected_histogram", 50.0), ("schedule_lag_histogram", 50.0)))]


def _us(encoded: str | None, q: float) -> float | None:
    """A percentile of an encoded histogram (ns) in µs; None when the stage kept no calls."""
    if not encoded:
        return None
    histogram = hist.decode(encoded)
    return hist.percentiles(histogram, (q,))[q] / 1e3 if histogram.get_total_count() else None
