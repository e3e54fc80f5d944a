"""The cells' histograms in the formats other tools read, so a run can be plotted and compared
with them and not only with rpcarena.

- `.hgrm`: one file per cell, the percentile distribution as HdrHistogram's Java
  `outputPercentileDistribution` prints it (what wrk2 prints and HdrHistogram's plotter reads);
  a stream cell's per-message latency beside it, in `<cell>.messages.hgrm`.
- `.hlog`: HdrHistogram's interval log (format 1.3, as the Java `HistogramLogWriter` writes it):
  one tagged interval per interval of each cell (a second by default, `--interval`), each its
  histogram in V2 compressed base64; a cell measured before intervals were kept, one for the cell.
- pyperf: a suite document (pyperf's JSON, version 1.0) with one benchmark per group of trials,
  one run per trial, for `pyperf compare_to`, `pyperf hist` and `pyperf stats`.

Latencies are written in milliseconds in the HdrHistogram text formats (the unit wrk2 and the
plotter use) and in seconds for pyperf (its unit); the histograms themselves stay in nanoseconds,
so the `.hlog`'s encoded histograms are read in ns (its header says so) and only its
Interval_Max column is in ms.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from rpcarena.files import output
from rpcarena.record import hist
from rpcarena.report import html
from rpcarena.results import Cell, Results

NS_PER_MS = 1e6
TICKS_PER_HALF_DISTANCE = 5  # HdrHistogram's default for outputPercentileDistribution
LOG_FORMAT_VERSION = "1.3"
PYPERF_VERSION = "1.0"
PYPERF_VALUES = 10_000  # values per run drawn from the histogram when a cell kept no raw samples


def measured(results: Results) -> Iterator[Cell]:
    """The cells with a histogram to export: ok, with calls."""
    return (c for c in results.cells if c.status == "ok" and c.calls and c.latency_histogram)


def identity(cell: Cell) -> str:
    """'contender<-client workload xN [(setting)] [at R/s] trial k', trials from 1 as `show --wide` numbers
    them; an open-loop cell (a --find-max probe, a --rate run) names its rate."""
    who = cell.contender if cell.client in ("py", cell.language, "") else f"{cell.contender}<-{cell.client}"
    setting = f" ({cell.setting})" if cell.setting else ""
    rate = f" at {cell.rate_per_s:.0f}/s" if cell.rate_per_s is not None else ""
    return f"{who} {cell.workload} x{cell.clients}{setting}{rate} trial {cell.trial_number}"


def identities(cells: list[Cell]) -> list[str]:
    """Each cell's `identity`, distinct: a cell measured twice alike (two parts of a suite, two probes whose
    rates round alike) gets ' #2', ' #3', so no cell's file or tag is another's."""
    seen: Counter[str] = Counter()
    out = []
    for cell in cells:
        name = identity(cell)
        seen[name] += 1
        out.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return out


def percentile_distribution(histogram: Any, scale: float = NS_PER_MS) -> str:
    """The text of Java's AbstractHistogram.outputPercentileDistribution(out, 5, scale)."""
    digits = histogram.significant_figures
    lines = [f"{'Value':>12} {'Percentile':>14} {'TotalCount':>10} {'1/(1-Percentile)':>14}\n\n"]
    for step in histogram.get_percentile_iterator(TICKS_PER_HALF_DISTANCE):
        value, level = step.value_iterated_to / scale, step.percentile_level_iterated_to / 100.0
        if level != 1.0:
            lines.append(f"{value:12.{digits}f} {level:2.12f} {step.total_count_to_this_value:10d} "
                         f"{1 / (1 - level):14.2f}\n")
        else:
            lines.append(f"{value:12.{digits}f} {level:2.12f} {step.total_count_to_this_value:10d}\n")
    mean, sd = histogram.get_mean_value() / scale, histogram.get_stddev() / scale
    lines.append(f"#[Mean    = {mean:12.{digits}f}, StdDeviation   = {sd:12.{digits}f}]\n")
    lines.append(f"#[Max     = {histogram.get_max_value() / scale:12.{digits}f}, "
                 f"Total count    = {histogram.get_total_count():12d}]\n")
    lines.append(f"#[Buckets = {histogram.bucket_count:12d}, SubBuckets     = {histogram.sub_bucket_count:12d}]\n")
    return "".join(lines)


def write_hgrm(results: Results, folder: str | os.PathLike[str], force: bool = False) -> list[Path]:
    """One <cell>.hgrm per measured cell (and <cell>.messages.hgrm per stream cell), in milliseconds;
    names are slugs of the cells' identities (none written over a results document without `force`)."""
    target = output.folder(folder, "--hgrm")
    cells = list(measured(results))
    named = identities(cells)
    names = html.slugs(named)
    written = []
    for cell, name in zip(cells, named):
        path = target / f"{names[name]}.hgrm"
        output.write(path, percentile_distribution(cell.histogram), option="--hgrm", force=force)
        written.append(path)
        if cell.message_latency_histogram:  # a stream's messages, each its own latency
            path = target / f"{names[name]}.messages.hgrm"
            output.write(path, percentile_distribution(hist.decode(cell.message_latency_histogram)), option="--hgrm",
                         force=force)
            written.append(path)
    return written


def _epoch(started: str) -> float | None:
    try:
        return datetime.fromisoformat(started).timestamp()
    except ValueError:
        return None


def tag(name: str) -> str:
    """A cell's identity as an hlog tag, which may hold no comma, space or line break."""
    return re.sub(r"[,\s]+", "_", name)


def interval_log(results: Results) -> str:
    """The text of an HdrHistogram interval log: each measured cell's intervals, tagged with its
    identity, from when the cell started (relative to the first); a cell without intervals, one
    interval as long as its measured phase."""
    cells = sorted(measured(results), key=lambda c: _epoch(c.started) or 0.0)
    tags = [tag(name) for name in identities(cells)]
    starts = [_epoch(c.started) for c in cells]
    base = min((s for s in starts if s is not None), default=0.0)
    lines = ["#[rpcarena results: each cell's intervals, tagged contender workload xN trial k; histogram values in ns, "
             "Interval_Max in ms (HistogramLogProcessor -outputValueUnitRatio 1000000 prints ms)]\n",
             f"#[Histogram log format version {LOG_FORMAT_VERSION}]\n",
             f"#[StartTime: {base:.3f} (seconds since epoch), "
             f"{time.strftime('%a %b %d %H:%M:%S UTC %Y', time.gmtime(base))}]\n",
             '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n']
    for cell, start, tagged in zip(cells, starts, tags):
        for offset_s, length_s, histogram in _intervals(cell):
            lines.append(f"Tag={tagged},{(start or base) - base + offset_s:.3f},{length_s:.3f},"
                         f"{histogram.get_max_value() / NS_PER_MS:.3f},{hist.encode(histogram)}\n")
    return "".join(lines)


def _intervals(cell: Cell) -> Iterator[tuple[float, float, Any]]:
    """(start from the cell's, length, histogram) of each interval with calls; the cell whole without any."""
    if not cell.intervals or not cell.interval_s:
        yield 0.0, cell.wall_s, cell.histogram
        return
    for item in cell.intervals:
        if item["calls"]:
            start = float(item["start_s"])
            yield start, max(min(cell.interval_s, cell.wall_s - start), 0.0), hist.decode(item["histogram"])


def write_text(text: str, path: str | os.PathLike[str], option: str = "-o", force: bool = False) -> Path:
    return output.write(path, text, option=option, force=force)


def _values_s(cell: Cell) -> list[float]:
    """The cell's latencies in seconds: its raw samples in call order, or, when it kept none,
    evenly spaced quantiles of its histogram (the same distribution, bounded in size)."""
    if cell.samples_ns:
        return [max(ns, 1) / 1e9 for _, ns in cell.samples_ns]
    n = min(cell.histogram.get_total_count(), PYPERF_VALUES)
    wanted = tuple(100.0 * (k + 0.5) / n for k in range(n))
    return [max(v, 1) / 1e9 for v in hist.percentiles(cell.histogram, wanted).values()]


def _run(cell: Cell) -> dict[str, Any]:
    metadata: dict[str, Any] = {"loops": 1, "calls": cell.calls, "errors": cell.error_count}
    metadata["date"] = cell.started.replace("T", " ")[:19] if cell.started else None
    metadata["duration"] = cell.wall_s if cell.wall_s > 0 else None
    metadata["load_avg_1min"] = (cell.drift.get("before") or {}).get("loadavg_1m")
    return {"metadata": {k: v for k, v in metadata.items() if v is not None}, "values": _values_s(cell)}


def _suite_metadata(results: Results) -> dict[str, Any]:
    env = results.environment
    named = {"hostname": env.get("hostname"), "cpu_model_name": env.get("cpu_model"),
             "cpu_count": env.get("cpus"), "python_version": env.get("python"), "platform": env.get("os"),
             "rpcarena_version": env.get("rpcarena"), "rpcarena_git_revision": env.get("git_revision")}
    return {k: v for k, v in named.items() if v not in (None, "")}


def pyperf_suite(results: Results) -> dict[str, Any]:
    """A pyperf suite document: a benchmark per (contender, client, workload, concurrency, network, rate),
    named like a cell without its trial; each trial one run whose values are its calls' latencies."""
    benchmarks: dict[str, list[dict[str, Any]]] = {}
    for cell in measured(results):
        benchmarks.setdefault(identity(cell).rsplit(" trial ", 1)[0], []).append(_run(cell))
    return {"version": PYPERF_VERSION, "metadata": _suite_metadata(results),
            "benchmarks": [{"metadata": {"name": name, "unit": "second"}, "runs": runs}
                           for name, runs in benchmarks.items()]}


def pyperf_json(results: Results) -> str:
    return json.dumps(pyperf_suite(results))
