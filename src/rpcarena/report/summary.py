"""The numbers table of one workload: intervals, ratios to the fastest, and warnings."""

from __future__ import annotations

from html import escape

from rpcarena.analysis import floor, stats
from rpcarena.analysis import groups as groups_of
from rpcarena.analysis.groups import Group
from rpcarena.report import answer
from rpcarena.report.figures import name
from rpcarena.report.html import Markup, table

HEADERS = ("#", "contender", "clients", "trials", "calls per trial", "median µs", "p99 µs", "mean µs", "CV (SD ÷ mean)",
           "× best median over trials [95% CI]", "× floor", "calls/s", "client CPU µs/call", "server CPU µs/call",
           "bytes/call")
STREAM_HEADERS = ("msg p50 µs", "msg p99 µs", "msg/s")  # per message of a stream, when a group has them
FLOOR = "floor"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def row(g: Group, rank: str, ratio: str, x_floor: float | None, several_levels: bool,
        median_us: float | None = None) -> list[object]:
    """One group's row: calls per trial (their mean), its median over trials (or `median_us`: a floor's
    is its fastest trial's, what × floor divides by), then each trial's figures averaged."""
    cv = g.histogram_stat("cv")
    median = answer.p50_us(g) if median_us is None else median_us
    p99 = _num(g.histogram_stat("p99_us"), 1) if answer.p99_supported(g) else answer.NOT_SUPPORTED
    return [rank, name(g, several_levels), g.clients, len(g.cells), f"{g.calls / len(g.cells):,.0f}", _num(median, 1),
            p99, _num(g.histogram_stat("mean_us"), 1),
            "-" if cv is None else f"{cv:.2f}", ratio, "-" if x_floor is None else f"{x_floor:.2f}×",
            _num(g.throughput_per_s), _num(g.client_cpu_us_per_call), _num(g.server_cpu_us_per_call),
            _num(g.payload_bytes_per_call)] + ([_num(g.message_stat("p50_us"), 1), _num(g.message_stat("p99_us"), 1),
                                               _num(g.messages_per_s)] if g.messages_per_s else [])


def _ranked_rows(ranked: list[Group], floors: list[Group], several: bool, apart: bool) -> list[list[object]]:
    """One comparison's mechanisms by rank, each with its ratio to the best over trials and its x floor."""
    ranked = sorted(ranked, key=answer.p50_us)
    out = []
    for i, g in enumerate(ranked, 1):
        ratio = None if i == 1 else groups_of.ratio(g, ranked[0], "median")
        reference = floor.reference(g, floors, answer.least_p50_us)
        x_floor = answer.p50_us(g) / answer.least_p50_us(reference) if reference is not None else None
        text = answer.ratio_text(ratio) if i > 1 else "best"
        out.append(row(g, f"{i}" + (f" ({answer.MOVED_NO_DATA})" if apart else ""), text, x_floor, several))
    return out


def _rows(workload: str, members: list[Group], several: bool) -> list[list[object]]:
    moved, apart, floors = answer.sides(workload, [g for g in members if g.has_samples])
    rows = _ranked_rows(moved, floors, several, False) + _ranked_rows(apart, floors, several, True)
    rows += [row(f, FLOOR, "-", None, several, answer.least_p50_us(f)) for f in sorted(floors, key=answer.least_p50_us)]
    return rows + [row(g, "-", "no raw samples kept", None, several) for g in members if not g.has_samples]


def numbers(groups: list[Group], cpus: int, warned: str = "", suite: bool = False) -> str:
    """One workload's table: per concurrency and network, its RPC mechanisms by rank, those that moved
    no data ranked apart, then the floors; its warnings (`warned`, by cause) below."""
    several = len({g.clients for g in groups}) > 1
    scopes: dict[tuple[int, str | None], list[Group]] = {}
    for g in groups:
        scopes.setdefault((g.clients, g.cells[0].setting), []).append(g)
    rows = [r for members in scopes.values() for r in _rows(members[0].workload, members, several)]
    note = stats.TRIM_LABEL if groups and groups[0].trimmed else "all calls (no trimming)"
    caption = Markup(f"<p class=\"note\">Ranked by median ({note}): each trial's median one value, the ratio "
                     "to the best and its 95% interval over trials, as the terminal prints them (fewer than 3 "
                     "trials a side: cannot tell). p99, mean, CV and calls/s from each trial's histogram and "
                     "counters, averaged. × floor: the median over the tcp-raw echo of the same client "
                     "language (a floor's row: its fastest trial's median), which is a reference, not ranked. "
                     "Trials are numbered from 1.</p>")
    streams = any(g.messages_per_s for g in groups)
    rows = [r + ["-"] * (len(HEADERS) + len(STREAM_HEADERS) - len(r)) for r in rows] if streams else rows
    headers = HEADERS + STREAM_HEADERS if streams else HEADERS
    unsupported = "" if all(answer.p99_supported(g) for g in groups) else \
        f'<p class="note">{escape(answer.P99_REASON_SUITE if suite else answer.P99_REASON)}</p>'
    return caption + table(headers, rows, left=2, css="numbers") + Markup(unsupported + warned)
