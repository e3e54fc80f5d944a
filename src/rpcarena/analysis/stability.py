"""Instability warnings: reasons not to trust a number, said next to it.

Each check looks at one cell (or the trials of one group) and returns one sentence,
its evidence and what to do, or nothing. The thresholds are deliberately plain and
listed here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rpcarena import clients
from rpcarena.analysis import hist, stats
from rpcarena.analysis.groups import Group
from rpcarena.results import Cell

HIGH_CV = 1.0  # SD above the mean: a long tail or a bimodal distribution
# Trials whose medians lie this far apart (the slowest over the fastest) differ by as much as the
# mechanisms an answer tells apart (issue 22: pairs 1.3x apart must be called). Below it the spread
# is already in every ratio's trial-based interval, and a warning would only repeat it.
TRIAL_SPREAD = 1.3
FEW_CALLS = 100
TAIL_CALLS = 10  # a percentile is supported when at least this many calls lie beyond it
OTHER_WAIT_SHARE = 0.05  # of the phase, the server's threads waiting for a CPU while others ran
OTHER_CPUS = 0.25  # CPUs' worth of CPU time of processes outside the run over the phase
MHZ_CHANGE = 0.05
CLIENT_SATURATED = 0.90
DELAYED_ACK_MS = 40.0  # Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN)
DELAYED_ACK_EARLY_MS = 2.0  # a timer may fire a little early
DELAYED_ACK_REST_MS = 12.0  # what a stalled call may spend on its own work
DELAYED_ACK_SHARE = 0.4  # of the sampled calls
DELAYED_ACK_MIN_CALLS = 20
SERVER_SATURATED = 0.90  # of the server's CPUs
BIMODAL_MIN_SAMPLES = 100
BIMODAL_BINS = 30  # over the log of the sampled latencies, from their p1 to their p99
# Two modes matter to the answer (a p50) when the median can land in either: modes at least 2x
# apart, each holding a quarter of the calls or more. A slow mode of fewer calls is a tail, read in
# the p99 (and a cross-CPU wake-up 1.5x slower than a same-CPU one is the machine, not the mechanism).
BIMODAL_SEPARATION = 2.0  # the two modes' latencies at least this many times apart
BIMODAL_VALLEY = 0.5  # the dip between them below half the lower peak
BIMODAL_SHARE = 0.25  # of the calls on each side of the dip
TREND_MIN_SAMPLES = 60
# A trend (throttling, a growing heap, load that came or went) takes seconds to show: over a phase
# shorter than this, a third against a third compares a few milliseconds of scheduling luck.
TREND_MIN_PHASE_S = 1.0
TREND_CHANGE = 0.20  # between the medians of the first and the last third of the phase
TREND_SIGMAS = 3.0  # the last third's calls above the first third's median: this far from half
SCHEDULE_LAG_SHARE = 0.10  # the driver's median lateness, of the corrected median latency
SCHEDULE_LAG_MIN_US = 20.0  # below this a driver's lateness is within the clock's and the kernel's noise


def high_cv(cell: Cell, cpus: int) -> str | None:
    cv = cell.latency.get("cv")
    if cv is not None and cv > HIGH_CV:
        return (f"high CV {cv:.2f}: call latency varies more than its mean (long tail or two modes); "
                "read the percentiles and the histogram, not the mean")
    return None


def supported(calls: int, percentile: float) -> bool:
    """Whether `calls` support a percentile: at least TAIL_CALLS of them beyond it (p99.9: 10,000 calls)."""
    return calls * (100.0 - percentile) / 100.0 >= TAIL_CALLS - 1e-9


def calls_for(percentile: float) -> int:
    return math.ceil(TAIL_CALLS * 100.0 / (100.0 - percentile) - 1e-9)


def few_calls(cell: Cell, cpus: int) -> str | None:
    if cell.calls < FEW_CALLS:
        return f"only {cell.calls} calls: every statistic is rough; use --calls 1000 or more"
    return None


def unsupported_percentiles(cell: Cell, cpus: int) -> str | None:
    """The percentiles too few calls lie beyond (a view that does not show them may leave this out)."""
    if cell.calls < FEW_CALLS:
        return None  # few_calls said it of every statistic
    unsupported = [p for p in hist.PERCENTILES if not supported(cell.calls, p)]
    if not unsupported:
        return None
    names = ", ".join(f"p{p:g}" for p in unsupported)
    which = "it is" if len(unsupported) == 1 else "they are"
    return (f"{cell.calls} calls: fewer than {TAIL_CALLS} lie beyond {names}, so {which} not supported; "
            f"use --calls {calls_for(unsupported[-1]):,} or more")


def failed_calls(cell: Cell, cpus: int) -> str | None:
    if not cell.error_count:
        return None
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(cell.errors.items()))
    return (f"{cell.error_count} failed calls ({kinds}), not in the latency; error_examples in the results "
            "say why")


def other_load(cell: Cell, cpus: int) -> str | None:
    """Other processes took CPU time from the cell during its measured phase: processes outside the
    run ran a quarter of a CPU or more, or the server's threads waited in the run queue while they
    ran (both read over the phase itself by process/contention). The wait counts only as far as the
    others' CPU time can explain it: a server's threads also queue behind one another and behind the
    drivers, and that wait is the cell's own. The 1-minute load average is not used: it trails a
    burst by minutes and cannot see one inside a phase."""
    phase_s = cell.contention.get("phase_s") or 0.0
    if phase_s <= 0:
        return None
    others_s = cell.contention.get("others_cpu_s", 0.0)
    waited = min(cell.contention.get("server_waited_s", 0.0), others_s) / phase_s
    others = others_s / phase_s
    if waited < OTHER_WAIT_SHARE and others < OTHER_CPUS:
        return None
    return (f"other load: processes outside the run ran {others:.2f} CPUs beside the cell and the server "
            f"waited for a CPU up to {waited:.0%} of the measured phase behind them, taking time from it; "
            "measure on a quiet machine, or --repeat 3 and compare medians")


def clock_drift(cell: Cell, cpus: int) -> str | None:
    before, after = (cell.drift.get(k, {}).get("cpu_mhz") for k in ("before", "after"))
    if not before or not after:
        return None
    if abs(after - before) / before > MHZ_CHANGE:
        return (f"CPU clock moved from {before:.0f} to {after:.0f} MHz (frequency scaling); fix the clock "
                "(the performance governor) or --repeat 3")
    return None


def queued_for_connection(cell: Cell, cpus: int) -> str | None:
    """--connections over a pool (HTTP/1.1, Thrift: one call at a time on a connection): say what the
    clients did with the connections they had, when waiting for one was most of a call."""
    wait, latency = cell.conn_wait.get("p50_us"), cell.latency.get("p50_us")
    if wait is None or not latency or wait < latency / 2:
        return None
    return (f"its {cell.clients} clients queued for {cell.connections} connection(s), one call at a time on each "
            f"(at most {cell.inflight_max} in flight): a call waited {wait:,.0f} µs of its {latency:,.0f} µs (p50) "
            f"for a connection, so the pool, not the server, sets this latency; more --connections shorten the queue")


def client_bottleneck(cell: Cell, cpus: int) -> str | None:
    """The client busy on (nearly) all it can use: its CPUs, or for Python clients its processes, each
    of which runs Python on one CPU at a time (the GIL), however many clients it drives."""
    client_cpus = len(cell.placement.get("client_cpus") or []) or cpus
    if clients.is_python(cell.client) and cell.client_processes:
        client_cpus = min(client_cpus, cell.client_processes)
    if cell.wall_s <= 0:
        return None
    busy = (cell.client_cpu_user_s + cell.client_cpu_sys_s) / (cell.wall_s * client_cpus)
    if busy > CLIENT_SATURATED:
        return (f"client used {busy:.0%} of the {client_cpus} CPU(s) it can use: the client, not the server, "
                f"may be the bottleneck; {NATIVE_CLIENT} or fewer clients")
    return None


NATIVE_CLIENT = "use a native client (--client go, or rust or java)"
FALLING_SHARE = 0.9  # calls/s at more clients below this share of calls/s at fewer


def falling_throughput(g: Group, fewer: Group | None) -> Diagnosis | None:
    """More clients and fewer calls/s than `fewer` (the same contender, client and workload at fewer
    clients): the clients compete for their own CPU, so the number measures the client, not the target."""
    now, before = g.throughput_per_s, fewer.throughput_per_s if fewer is not None else None
    if fewer is None or not now or not before or now >= FALLING_SHARE * before:
        return None
    return Diagnosis("client_bottleneck", (
        f"{now:,.0f} calls/s at {g.clients} clients against {before:,.0f} at {fewer.clients}: more clients made "
        f"fewer calls, so the clients, not the server, are the limit; {NATIVE_CLIENT}"))


def late_calls(cell: Cell, cpus: int) -> str | None:
    if cell.late_calls:
        return (f"{cell.late_calls} calls started late: the client could not keep the requested rate; "
                "lower --rate, add clients or use a native client")
    return None


def delayed_ack(cell: Cell, cpus: int) -> str | None:
    """Latency clustered at multiples of Linux's delayed-ACK timer above the link's round trip:
    the signature of Nagle's algorithm holding a small write until the peer's ACK comes. With
    TCP_NODELAY read on at both ends Nagle holds nothing: such a pattern is the link's (its rate,
    its loss recovery), never a warning to set what is set."""
    if cell.tcp_nodelay.get("client") is True and cell.tcp_nodelay.get("server") is True:
        return None
    latencies_ms = stats.samples_us(cell.samples_ns) / 1e3 - (cell.link_rtt_ms or 0.0)
    if latencies_ms.size < DELAYED_ACK_MIN_CALLS:
        return None
    # k stalls of the timer, plus the call's own work (small beside the timer, or no pattern at all)
    stalls = np.floor((latencies_ms + DELAYED_ACK_EARLY_MS) / DELAYED_ACK_MS)
    rest = latencies_ms - stalls * DELAYED_ACK_MS
    near = (stalls >= 1) & (rest <= DELAYED_ACK_REST_MS)
    share = float(near.mean())
    if share < DELAYED_ACK_SHARE:
        return None
    off = [end for end in ("client", "server") if cell.tcp_nodelay.get(end) is False]
    where = f"TCP_NODELAY is off at the {' and the '.join(off)}" if off else "check TCP_NODELAY at both ends"
    fix = "set TCP_NODELAY" + (" (for RPyC's client: rpyc-nodelay)" if "client" in off or not off else
                               " on the server's sockets")
    return (f"{share:.0%} of calls took a multiple of ~{DELAYED_ACK_MS:.0f} ms beyond the round trip and {where}: "
            f"Nagle's algorithm waits for a delayed ACK (40 ms on Linux), which is not the protocol's cost; {fix}")


def _server_busy(cell: Cell, cpus: int) -> tuple[float, int] | None:
    """The share of its CPUs the server used in the measured phase, and how many it had (None: unknown)."""
    server_cpus = len(cell.placement.get("server_cpus") or []) or cpus
    spent = cell.server_cpu_us_per_call
    if spent is None or cell.wall_s <= 0 or cell.server_counters_include_warmup:
        return None
    return spent * cell.calls / 1e6 / (cell.wall_s * server_cpus), server_cpus


def server_saturated(cell: Cell, cpus: int) -> str | None:
    """The server busy on (nearly) all its CPUs: throughput is its ceiling and latency queues in it."""
    measured = _server_busy(cell, cpus)
    if measured is None or measured[0] <= SERVER_SATURATED:
        return None
    busy, server_cpus = measured
    return (f"server used {busy:.0%} of its {server_cpus} CPU(s): it is saturated, so throughput is its ceiling "
            "and latency includes queueing in it; give it more CPUs (--pin none) or use fewer clients")


def schedule_lag(cell: Cell, cpus: int) -> str | None:
    """Open loop: the driver sent its calls late while the server had CPU to spare. Latency runs
    from each call's intended start, so the driver's lateness is charged to the server."""
    if not cell.schedule_lag_histogram or not cell.calls:
        return None
    busy = _server_busy(cell, cpus)
    if busy is not None and busy[0] > SERVER_SATURATED:
        return None  # calls queued behind a saturated server: server_saturated says so
    lag = hist.percentiles(hist.decode(cell.schedule_lag_histogram), (50.0, 99.0))
    lag_us, lag_p99_us, corrected_us = lag[50.0] / 1e3, lag[99.0] / 1e3, cell.latency.get("p50_us") or 0.0
    if lag_us < SCHEDULE_LAG_MIN_US or lag_us < SCHEDULE_LAG_SHARE * corrected_us:
        return None
    return (f"the driver, not the server, fell behind its schedule, by {_us(lag_us)} at the median "
            f"({lag_us / corrected_us:.0%} of the corrected p50 of {_us(corrected_us)}; p99 {_us(lag_p99_us)}): "
            "that lateness is counted as latency; keep the client's CPUs free, use a native client "
            "(--client go or rust), add clients (-c: every call in flight holds one), or lower --rate")


def bimodal(cell: Cell, cpus: int) -> str | None:
    """Two separate modes in the sampled latencies (a histogram over their logarithm)."""
    latencies = stats.samples_us(cell.samples_ns)
    if latencies.size < BIMODAL_MIN_SAMPLES or np.any(latencies <= 0):
        return None
    found = _two_modes(np.log(latencies))
    if found is None:
        return None
    fast, slow, share = found
    return (f"latency has two modes, near {_us(fast)} and {_us(slow)} ({share:.0%} of calls in the slower): "
            "a median or mean describes neither; look at the histogram and for what hits some calls only "
            "(GC, a lock, a timer, Nagle, a second code path, or other load preempting the processes)")


def _two_modes(logs: np.ndarray) -> tuple[float, float, float] | None:
    """(fast mode, slow mode, share of calls in the slow one), in µs, or None when there is one mode."""
    low, high = np.percentile(logs, [1, 99])
    if high - low < math.log(BIMODAL_SEPARATION):
        return None
    counts, edges = np.histogram(logs, bins=BIMODAL_BINS, range=(low, high))
    smooth = np.convolve(counts, [1, 2, 3, 2, 1], mode="same") / 9.0
    centers = (edges[:-1] + edges[1:]) / 2
    top = int(np.argmax(smooth))
    for other in np.argsort(smooth)[::-1]:
        a, b = sorted((top, int(other)))
        if centers[b] - centers[a] < math.log(BIMODAL_SEPARATION):
            continue
        dip = a + int(np.argmin(smooth[a:b + 1]))
        slow_share = float(np.mean(logs > edges[dip + 1]))
        if (smooth[dip] < BIMODAL_VALLEY * min(smooth[a], smooth[b])
                and BIMODAL_SHARE <= slow_share <= 1 - BIMODAL_SHARE):
            return math.exp(centers[a]), math.exp(centers[b]), slow_share
    return None


def trend(cell: Cell, cpus: int) -> str | None:
    """Calls getting faster or slower over a measured phase of TREND_MIN_PHASE_S or more: the last
    third against the first.

    The samples are a uniform reservoir of [call index, latency]; in call-index order they are
    the phase in time order (the calls themselves are not timestamped)."""
    if len(cell.samples_ns) < TREND_MIN_SAMPLES or cell.wall_s < TREND_MIN_PHASE_S:
        return None
    ordered = np.asarray(sorted(cell.samples_ns), dtype=float)[:, 1] / 1e3
    third = ordered.size // 3
    first, last = ordered[:third], ordered[-third:]
    before, after = float(np.median(first)), float(np.median(last))
    above = float(np.mean(last > before))  # about half without a trend, with a spread of 0.5/sqrt(n)
    if abs(after - before) <= TREND_CHANGE * before or abs(above - 0.5) <= TREND_SIGMAS * 0.5 / math.sqrt(third):
        return None
    if after < before:
        return (f"calls got {1 - after / before:.0%} faster over the measured phase (median {_us(before)} in its "
                f"first third, {_us(after)} in its last): warm-up (JIT, GC, caches) was not finished, or other "
                "load eased; use a longer --warmup and check the machine's load")
    return (f"calls got {after / before - 1:.0%} slower over the measured phase (median {_us(before)} in its "
            f"first third, {_us(after)} in its last): throttling, a growing heap or other load; check the "
            "machine's load and CPU clock, and --repeat the cell")


# what steady_growth looks at across the intervals (Cell.trends): its name, unit and scale
GROWING = (("p50", "p50_us", "µs", 1.0), ("p99", "p99_us", "µs", 1.0), ("server RSS", "server_rss_bytes", "MB", 1e-6))


def steady_growth(cell: Cell, cpus: int) -> str | None:
    """Latency or the server's memory growing steadily over the run, interval after interval: only
    when the trend is real (analysis.trend: enough intervals, a slope whose 95% interval leaves out
    zero, a fitted growth beyond the interval-to-interval noise), so a short run never says so."""
    grown = [f"{name} {fit.said(unit, scale)}" for name, key, unit, scale in GROWING
             if (fit := cell.trends.get(key)) is not None and fit.real and fit.per_min > 0]
    if not grown:
        return None
    return (f"{' and '.join(grown)} over {len(cell.intervals)} intervals of {cell.interval_s:g} s: growing "
            "steadily through the run (a leak, a growing heap or queue); run longer (--duration) to see whether "
            "it levels off, and read the HTML's over-time figure")


def _us(value: float) -> str:
    return f"{value / 1e3:.1f} ms" if value >= 1000 else f"{value:.0f} µs"


CELL_CHECKS: tuple[Callable[[Cell, int], str | None], ...] = (
    few_calls, unsupported_percentiles, failed_calls, high_cv, bimodal, trend, steady_growth, client_bottleneck,
    server_saturated,
    other_load, clock_drift, late_calls, schedule_lag, delayed_ack, queued_for_connection)


def trial_spread(g: Group) -> str | None:
    """The trials' medians differ by TRIAL_SPREAD or more: as much as the mechanisms being ranked."""
    medians = [m for c in g.cells if c.latency.get("count") and (m := c.latency.get("p50_us"))]
    if len(medians) < 2 or max(medians) < TRIAL_SPREAD * min(medians):
        return None
    return (f"medians of the {len(medians)} trials differ ({_us(min(medians))} to {_us(max(medians))}, "
            f"{max(medians) / min(medians):.2f}x): results depend on the run; check the machine's load and "
            "--repeat more trials")


@dataclass(frozen=True)
class Diagnosis:
    """One check that fired on a group: its name (the check's) and its sentence (evidence, what to do)."""

    check: str
    text: str

    @property
    def kind(self) -> str:
        """The machine-readable kind (JSON `kind`, CSV `warning_kinds`): the check's name in kebab case."""
        return self.check.replace("_", "-")

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


MOVED_SHARE = 0.25  # of the workload's request and reply: below it, references moved, not the data


def moves_no_data(g: Group, payload_bytes: float) -> Diagnosis | None:
    """A group whose calls moved far fewer bytes than its workload's request and reply encode: it
    passed references (RPyC netrefs, lazy proxies) the server reads back only when asked, so its
    latency is that of another job and is not comparable with the mechanisms that moved the data."""
    moved = g.payload_bytes_per_call
    if moved is None or payload_bytes <= 0 or moved >= MOVED_SHARE * payload_bytes:
        return None
    return Diagnosis("moves_no_data", (
        f"moved {moved:,.0f} B a call where the workload's request and reply encode {payload_bytes:,.0f} B: "
        "it passed references (netrefs, lazy proxies), not the data, so it is ranked apart from the "
        "mechanisms that moved it; pass copies (rpyc's obtain, by value) to compare like for like"))


def diagnoses(g: Group, cpus: int) -> list[Diagnosis]:
    """Every check that fired for a group; a check that fires in several trials is said once."""
    found: list[Diagnosis] = []
    for check in CELL_CHECKS:
        fired = [(cell.trial, text) for cell in g.cells if (text := check(cell, cpus))]
        if fired:
            trials = "" if len(g.cells) == 1 else f" (trial {', '.join(str(t) for t, _ in fired)})"
            found.append(Diagnosis(check.__name__, fired[0][1] + trials))
    spread = trial_spread(g)
    return found + ([Diagnosis("trial_spread", spread)] if spread else [])


def warnings(g: Group, cpus: int) -> list[str]:
    """Every warning for a group, as sentences."""
    return [d.text for d in diagnoses(g, cpus)]
