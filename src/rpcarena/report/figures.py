"""The charts of one workload, as matplotlib figures (Agg, no global pyplot state).

Each function takes the groups of one workload and returns a Figure, or None
when there is nothing to draw (e.g. one concurrency level, no byte counters).
Their marks carry tooltips (`tip`): in the SVG each becomes a <title>, which a
browser shows on hover, so the page needs no script and no plotting library.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from rpcarena.analysis import groups as groups_of
from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group
from rpcarena.record import intervals as intervals_of
from rpcarena.report import answer

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon

    from rpcarena.results import Cell

WIDTH = 9.0
# matplotlib's "tab10", written out: importing matplotlib costs every command (and every test that
# runs one) more than the rest of rpcarena together, so it is imported only when a figure is drawn
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINESTYLES = ("-", "--", ":", "-.")


def style(i: int) -> dict[str, Any]:
    """Series i's colour with a marker and a line style that change each time the ten colours come
    round again, so no two series of a figure look alike (13 series, 10 colours)."""
    turn = i // len(COLORS)
    return {"color": COLORS[i % len(COLORS)], "marker": MARKERS[turn % len(MARKERS)],
            "linestyle": LINESTYLES[turn % len(LINESTYLES)]}
_TIP = re.compile(r'<g id="tip-([0-9a-f]+)">')


def tip(artist: Artist, text: str) -> None:
    """Give a mark its hover text. Matplotlib writes an artist's gid as the id of the <g> that holds
    it; the text rides in that id, hex-encoded so no quoting can break it, until `with_tooltips`."""
    artist.set_gid("tip-" + text.encode().hex())


def with_tooltips(svg: str) -> str:
    """Matplotlib's SVG with each tipped mark's id turned into a <title> child."""
    return _TIP.sub(lambda m: f"<g><title>{escape(bytes.fromhex(m.group(1)).decode())}</title>", svg)


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} µs"


def _num(value: float | None, digits: int = 0) -> str:
    return "not measured" if value is None else f"{value:,.{digits}f}"


def name(g: Group, several_levels: bool) -> str:
    return f"{g.label} x{g.clients}" if several_levels else g.label


def _names(groups: list[Group]) -> list[str]:
    several = len({g.clients for g in groups}) > 1
    return [name(g, several) for g in groups]


def _new(height: float) -> Figure:
    """A figure of its own (Agg: no display, no pyplot state shared between figures)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(WIDTH, height), layout="constrained")


def _figure(height: float = 3.6) -> tuple[Figure, Axes]:
    fig = _new(height)
    return fig, fig.add_subplot()


def _one() -> tuple[Figure, list[Axes]]:
    """A figure of one axes, as a list like `_grid`'s panels."""
    fig, ax = _figure()
    return fig, [ax]


def _latency_label(groups: list[Group]) -> str:
    return "latency (µs, " + ("trimmed p2..p98)" if groups and groups[0].trimmed else "all calls)")


def boxplot(groups: list[Group]) -> Figure | None:
    drawn = [g for g in groups if g.has_samples]
    if not drawn:
        return None
    fig, ax = _figure(0.9 + 0.35 * len(drawn) + 1.5)
    parts = ax.boxplot([g.samples for g in drawn], orientation="horizontal", tick_labels=_names(drawn),
                       showfliers=True, flierprops={"markersize": 2, "alpha": 0.4})
    for box, g, label in zip(parts["boxes"], drawn, _names(drawn)):
        p25, p50, p75, p99 = np.percentile(g.samples, [25, 50, 75, 99])
        tip(box, f"{label}: p25 {_us(p25)}, median {_us(p50)}, p75 {_us(p75)}, p99 {_us(p99)} "
                 f"({g.samples.size:,} sampled calls)")
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel(_latency_label(drawn))
    ax.set_title("distribution per contender (box: p25..p75, whiskers: 1.5 IQR)")
    return fig


SPREAD_FOR_LOG = 30  # largest/smallest bar beyond which the bars are drawn on a log axis


def _ratios(groups: list[Group]) -> list[tuple[Group, stats.Ratio | None]]:
    """Each mechanism with its median over the best's of its comparison (None for the best), as the
    tables rank them: per concurrency and network, those that moved no data apart, floors left out."""
    scopes: dict[tuple[int, str | None], list[Group]] = {}
    for g in groups:
        if g.has_samples:
            scopes.setdefault((g.clients, g.cells[0].setting), []).append(g)
    out: list[tuple[Group, stats.Ratio | None]] = []
    for members in scopes.values():
        moved, apart, _ = answer.sides(members[0].workload, members)
        for ranked in (sorted(moved, key=answer.p50_us), sorted(apart, key=answer.p50_us)):
            out += [(g, None if i == 0 else groups_of.ratio(g, ranked[0], "median")) for i, g in enumerate(ranked)]
    return out


def interval_bars(groups: list[Group]) -> Figure | None:
    """The tables' answer drawn: each mechanism's median over the best's with its 95% interval over
    trials (no call-level bootstrap, which would claim more certainty than the trials give)."""
    drawn = _ratios(groups)
    if not drawn:
        return None
    fig, ax = _figure(0.9 + 0.3 * len(drawn) + 1.5)
    y = np.arange(len(drawn))
    est = np.array([1.0 if r is None else r.estimate for _, r in drawn])
    low = [0.0 if r is None or r.interval is None else r.estimate - r.interval.low for _, r in drawn]
    high = [0.0 if r is None or r.interval is None else r.interval.high - r.estimate for _, r in drawn]
    bars = ax.barh(y, est, height=0.6, xerr=np.array([low, high]), color=COLORS[0], capsize=3)
    names = [name(g, len({g.clients for g, _ in drawn}) > 1) for g, _ in drawn]
    for bar, (_, r), label in zip(bars, drawn, names):
        tip(bar, f"{label}: {answer.ratio_text(r)}")
    if est.max() / est.min() > SPREAD_FOR_LOG:
        ax.set_xscale("log")  # one slow contender would flatten every other bar to nothing
    ax.axvline(1.0, color="#444", linewidth=0.8)
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlabel("median ÷ the best median of its comparison" + (" (log scale)" if ax.get_xscale() == "log" else ""))
    ax.set_title(f"ratio to the best with its {stats.CONFIDENCE:.0%} interval over trials")
    return fig


MAX_SERIES = 4  # the series one panel keeps apart (colour, dash, marker); more get a panel each (small multiples)
GRID_COLUMNS = 3


def _grid(count: int, height: float = 2.2) -> tuple[Figure, list[Axes]]:
    """Small multiples: `count` panels in rows of GRID_COLUMNS sharing both axes, the spare ones hidden."""
    rows = -(-count // GRID_COLUMNS)
    fig = _new(0.9 + height * rows)
    axes: list[Axes] = list(np.atleast_1d(fig.subplots(rows, GRID_COLUMNS, sharex=True, sharey=True)).ravel())
    for spare in axes[count:]:
        spare.set_visible(False)
    return fig, axes[:count]


def _outside(ax: Axes) -> None:
    """The axes' legend beside it, right of the data, where it covers none."""
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def histogram(groups: list[Group]) -> Figure | None:
    """Each contender's sampled latencies: one panel of up to MAX_SERIES steps, or a panel each."""
    drawn = [g for g in groups if g.has_samples]
    if not drawn:
        return None
    pooled = np.concatenate([g.samples for g in drawn])
    bins = np.geomspace(max(pooled.min(), 0.1), pooled.max() * 1.01, 60)
    apart = len(drawn) > MAX_SERIES
    fig, axes = _grid(len(drawn)) if apart else _one()
    for i, (g, label) in enumerate(zip(drawn, _names(drawn))):
        ax = axes[i if apart else 0]
        look = style(0 if apart else i)
        # an ndarray of edges is what hist takes; its stub names only Sequence[float]
        _, _, patches = ax.hist(g.samples, bins=bins, histtype="step",  # type: ignore[arg-type]
                                linewidth=1.4, color=look["color"], linestyle=look["linestyle"], label=label)
        # the stub gives every histtype's result; "step" over one data set draws a list of one Polygon
        step, *_ = cast("list[Polygon]", patches)
        low, high = np.percentile(g.samples, [1, 99])
        tip(step, f"{label}: {g.samples.size:,} sampled calls, p1 {_us(low)}, p99 {_us(high)}")
        if apart:
            ax.set_title(label, fontsize="small")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
    _labels(fig, axes if apart else None, _latency_label(drawn), "calls (sampled)", "latency histogram (log scales)")
    if not apart:
        _outside(axes[0])
    return fig


def _labels(fig: Figure, grid: list[Axes] | None, xlabel: str, ylabel: str, title: str) -> None:
    """A figure's axis labels and title: once for a grid of panels, on its one axes otherwise."""
    if grid is None:
        ax = fig.axes[0]
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        return
    _bottom_labels(grid, xlabel, GRID_COLUMNS)
    fig.supylabel(ylabel)
    fig.suptitle(title)


def _bottom_labels(panels: list[Axes], xlabel: str, columns: int) -> None:
    """The x label under each panel with none below it (a label for the whole figure would sit where a
    legend below the panels goes)."""
    for i, ax in enumerate(panels):
        if i + columns >= len(panels):
            ax.set_xlabel(xlabel)


def scatter(groups: list[Group]) -> Figure | None:
    """Each sampled call's latency against its place in the phase: a panel per contender, its trials
    in colours (a cloud per contender in one panel hides all but the top one)."""
    drawn = [g for g in groups if g.has_samples]
    if not drawn:
        return None
    fig, axes = _grid(len(drawn))
    for ax, g, label in zip(axes, drawn, _names(drawn)):
        for cell in g.cells:
            points = np.asarray(cell.samples_ns, dtype=float).reshape(-1, 2)
            keep = _trim_mask(points[:, 1]) if g.trimmed else slice(None)
            dots = ax.scatter(points[keep, 0], points[keep, 1] / 1e3, s=2, alpha=0.5, color=style(cell.trial)["color"],
                              marker=style(cell.trial)["marker"], label=f"trial {cell.trial + 1}", rasterized=True)
            tip(dots, f"{label}, trial {cell.trial + 1}: {len(points):,} sampled calls")
        ax.set_title(label, fontsize="small")
        ax.set_yscale("log")
    _labels(fig, axes, "call index (each trial from 0)", _latency_label(drawn), "latency over the run (warm-up "
            "excluded), a panel per contender")
    trials = max(drawn, key=lambda g: len(g.cells))
    if len(trials.cells) > 1:  # the trials' colours, once for every panel, below them
        handles, labels = axes[drawn.index(trials)].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize="small", markerscale=4)
    return fig


def _trim_mask(values: np.ndarray) -> np.ndarray:
    low, high = np.percentile(values, stats.TRIM_PERCENTILES)
    inside: np.ndarray = (values >= low) & (values <= high)
    return inside


def by_clients(groups: list[Group]) -> Figure | None:
    levels = sorted({g.clients for g in groups})
    if len(levels) < 2:
        return None
    fig = _new(3.6)
    left, right = fig.subplots(1, 2)
    lines: dict[str, list[Group]] = {}
    for g in groups:
        lines.setdefault(g.label, []).append(g)
    for i, (label, line) in enumerate(lines.items()):
        line.sort(key=lambda g: g.clients)
        x = [g.clients for g in line]
        rates, p99s = [g.throughput_per_s for g in line], [g.histogram_stat("p99_us") for g in line]
        (rate,) = left.plot(x, rates, label=label, **style(i))
        (tail,) = right.plot(x, p99s, label=label, **style(i))
        tip(rate, f"{label} calls/s: " + ", ".join(f"{n} clients {_num(v)}" for n, v in zip(x, rates)))
        tip(tail, f"{label} p99: " + ", ".join(f"{n} clients {_us(v)}" for n, v in zip(x, p99s)))
    for ax, title in ((left, "throughput (calls/s)"), (right, "p99 latency (µs, histogram)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(levels, [str(v) for v in levels])
        ax.set_xlabel("concurrent clients")
        ax.set_title(title)
    _outside(right)
    return fig


def _bars(groups: list[Group], series: list[tuple[str, Callable[[Group], float | None]]], title: str,
          xlabel: str) -> Figure | None:
    values = [[fn(g) for g in groups] for _, fn in series]
    if not groups or all(v is None for vs in values for v in vs):
        return None
    fig, ax = _figure(0.9 + 0.4 * len(groups) + 1.2)
    y = np.arange(len(groups))
    height = 0.8 / len(series)
    for k, ((label, _), vs) in enumerate(zip(series, values)):
        bars = ax.barh(y - 0.4 + height * (k + 0.5), [v or 0 for v in vs], height=height, color=COLORS[k],
                       label=label)
        for bar, v, who in zip(bars, vs, _names(groups)):
            tip(bar, f"{who}, {label}: {_num(v, 1)} {xlabel}")
    ax.set_yticks(y, _names(groups))
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if len(series) > 1:
        _outside(ax)
    return fig


def cpu(groups: list[Group]) -> Figure | None:
    return _bars(groups, [("client", lambda g: g.client_cpu_us_per_call),
                          ("server", lambda g: g.server_cpu_us_per_call)],
                 "CPU time per call (user + system)", "CPU µs per call")


def wire_bytes(groups: list[Group]) -> Figure | None:
    return _bars(groups, [("payload", lambda g: g.payload_bytes_per_call)],
                 "bytes per call on the wire (TCP payload, both ways; kernel counters)", "bytes per call")


def _wire_kb(row: dict[str, Any]) -> float | None:
    both = [row.get(k) for k in ("wire_in_bytes", "wire_out_bytes")]
    return None if None in both else sum(both) / 1e3  # type: ignore[arg-type]


def _rss_mb(row: dict[str, Any]) -> float | None:
    return None if row.get("server_rss_bytes") is None else row["server_rss_bytes"] / 1e6


# the panels of `over_time`: each plots a value of an interval's row (record.intervals.rows) on its axis
_PANELS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
    ("calls/s", lambda row: row["calls_per_s"]), ("p50 (µs)", lambda row: row["p50_us"]),
    ("p99 (µs)", lambda row: row["p99_us"]), ("failed calls", lambda row: row["errors"]),
    ("wire KB, both ways", _wire_kb), ("server RSS (MB)", _rss_mb))
OVER_TIME_INTERVALS = 3  # a phase of fewer intervals is a stub, not a course over time


def over_time(groups: list[Group]) -> Figure | None:
    """Each cell's measured phase interval by interval: a row per contender (its trials in colours),
    a column per figure read (calls/s, p50, p99, and failed calls, bytes and the server's memory when
    any interval has them); the warm-up before the phase shaded (its calls are not measured). Cells of
    fewer than OVER_TIME_INTERVALS intervals are left out: a sub-second phase is one step."""
    drawn = [(g, label, cells) for g, label in zip(groups, _names(groups))
             if (cells := [c for c in g.cells if c.interval_s and len(c.intervals) >= OVER_TIME_INTERVALS])]
    if not drawn:
        return None
    rows = {id(c): intervals_of.rows(c.intervals, c.interval_s, c.wall_s, c.server_intervals)
            for _, _, cells in drawn for c in cells if c.interval_s}
    panels = [(axis, value) for axis, value in _PANELS
              if any((v := value(row)) is not None and v != 0 for r in rows.values() for row in r)]
    fig = _new(0.9 + 1.6 * len(drawn))
    grid = np.atleast_2d(fig.subplots(len(drawn), len(panels), sharex="row", squeeze=False))  # a row its own span
    warmup = max((c.warmup_s or 0.0) for _, _, cells in drawn for c in cells)
    for (_g, label, cells), axes in zip(drawn, grid):
        for k, (ax, (axis, value)) in enumerate(zip(axes, panels)):
            if warmup:
                ax.axvspan(-warmup, 0.0, color="0.9", label="warm-up (not measured)")
            for cell in cells:
                _steps(ax, cell, rows[id(cell)], value, style(cell.trial), f"{label}, trial {cell.trial + 1}: {axis}")
            ax.set_title(f"{label}: {axis}" if k == 0 else axis, fontsize="small", loc="left")
    for axes in grid:  # each row its own time span: a short phase beside a long one is no stub
        for ax in axes:
            ax.set_xlabel("s into the phase", fontsize="small")
    fig.suptitle("over time: each cell's measured phase, interval by interval")
    seen: dict[str, Any] = {}  # every row's trials, once: a contender's first row may lack a trial
    for ax in grid.ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=len(seen), fontsize="small")
    return fig


def _steps(ax: Axes, cell: Cell, rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], Any],
           look: dict[str, Any], name: str) -> None:
    """One cell's value per interval as steps, the last one too, up to the end of the phase."""
    edges = [row["start_s"] for row in rows] + [min(rows[-1]["start_s"] + cell.interval_s, cell.wall_s)]
    values = [np.nan if (v := value(row)) is None else v for row in rows]
    line, = ax.plot(edges, values + values[-1:], drawstyle="steps-post", color=look["color"],
                    linestyle=look["linestyle"], label=f"trial {cell.trial + 1}")
    tip(line, f"{name} per {cell.interval_s:g}s interval")


FIGURES: dict[str, Callable[[list[Group]], Figure | None]] = {
    "boxplot": boxplot, "intervals": interval_bars, "histogram": histogram, "scatter": scatter,
    "over_time": over_time,
    "clients": by_clients, "cpu": cpu, "bytes": wire_bytes,
}
