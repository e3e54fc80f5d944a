"""The numbers table of one workload: intervals, ratios to the fastest, and warnings."""

from __future__ import annotations

from rpcarena.analysis import stability, stats
from rpcarena.analysis.groups import Group
from rpcarena.report.figures import name
from rpcarena.report.html import Markup, table, warnings

HEADERS = ("contender", "clients", "trials", "calls", "median µs [95% CI]", "p99 µs [95% CI]", "mean µs",
           "CV", "× fastest median at this concurrency [95% CI]", "calls/s", "CPU µs/call client", "server",
           "bytes/call",
           "warnings")


def interval_text(ci: stats.Interval, digits: int = 1) -> str:
    return f"{ci.estimate:,.{digits}f} [{ci.low:,.{digits}f}, {ci.high:,.{digits}f}]"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def fastest(groups: list[Group]) -> Group | None:
    drawn = [g for g in groups if g.has_samples]
    return min(drawn, key=lambda g: g.bootstrap().estimates["median"]) if drawn else None


def row(g: Group, best: Group | None, several_levels: bool, cpus: int) -> list[object]:
    if not g.has_samples:
        return [name(g, several_levels), g.clients, len(g.cells), g.calls] + ["-"] * 9 + [
            warnings(["no raw samples kept: only the terminal table's histogram numbers exist"])]
    ratio = stats.ratio(g.bootstrap(), best.bootstrap()) if best is not None and best is not g else None
    cv = g.histogram_stat("cv")
    return [name(g, several_levels), g.clients, len(g.cells), g.calls,
            interval_text(g.interval("median")), interval_text(g.interval("p99")),
            _num(g.bootstrap().estimates["mean"], 1), "-" if cv is None else f"{cv:.2f}",
            "fastest" if ratio is None else interval_text(ratio, 2), _num(g.throughput_per_s),
            _num(g.client_cpu_us_per_call), _num(g.server_cpu_us_per_call), _num(g.payload_bytes_per_call),
            warnings(stability.warnings(g, cpus))]


def numbers(groups: list[Group], cpus: int) -> str:
    several = len({g.clients for g in groups}) > 1
    best = {level: fastest([g for g in groups if g.clients == level]) for level in {g.clients for g in groups}}
    note = stats.TRIM_LABEL if groups and groups[0].trimmed else "all calls (no trimming)"
    caption = Markup(f'<p class="note">Intervals: percentile bootstrap over the raw samples ({note}; '
                     "trials resampled first when there are several). CV and calls/s from the histograms "
                     "and counters of each trial, averaged.</p>")
    return caption + table(HEADERS, [row(g, best[g.clients], several, cpus) for g in groups], css="numbers")
