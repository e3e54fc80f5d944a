"""Instability warnings: reasons not to trust a number, said next to it.

Each check looks at one cell (or the trials of one group) and returns what it found (`Fired`): the
evidence with its figure, what to do, and how far the cause could have moved the cell's p50 (its
`effect`, a factor). The thresholds are deliberately plain and listed here.

A check firing is not yet a warning in the answer: a cause earns its line only where it is large
enough to change the answer of this run (`material`): its effect reaches the entry's `margins`, the
least factor its p50 would have to move by to swap places with a neighbour in its ranking or to
turn its ratio's verdict (significant or not). A cause that is a verdict of its own (the client,
not the server, was measured; calls failed; no data moved) has no effect factor and always earns
it. docs/report.md lists each kind's rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from rpcarena import clients
from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group
from rpcarena.record import hist
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
# A contender ranked alone has no neighbour to swap with nor a ratio to turn: a cause earns its line
# there when it could have moved its p50 by a tenth.
LONE_MARGIN = 1.10
MEDIAN_Z = 1.96  # the order statistics of a median's 95% interval: n/2 +- 1.96 sqrt(n)/2


@dataclass(frozen=True)
class Fired:
    """What a check found in one cell: the evidence with its figure (`said`), what to do (`fix`, and
    `more` for a run of fewer than stats.MIN_TRIALS trials), the figure alone (for the one-line
    summary of a cause over many cells), and `effect`: the factor by which the cause could have
    moved the cell's p50 (1.0: it does not move a p50; None: a verdict of its own, whatever the p50)."""

    said: str
    fix: str
    figure: float | None = None
    effect: float | None = None
    more: str = ""

    def text(self, trials: int = 1) -> str:
        fix = f"{self.fix}, or {self.more}" if self.more and trials < stats.MIN_TRIALS else self.fix
        return f"{self.said}; {fix}" if fix else self.said


Check = Callable[[Cell, int], Fired | None]


def high_cv(cell: Cell, cpus: int) -> Fired | None:
    """For the views that show a mean (the full table, the exports): the answer ranks p50s, which a
    high CV does not move (effect 1)."""
    cv = cell.latency.get("cv")
    if cv is not None and cv > HIGH_CV:
        return Fired(f"high CV {cv:.2f}: call latency varies more than its mean (long tail or two modes)",
                     "read the percentiles and the histogram, not the mean", cv, 1.0)
    return None


def supported(calls: int, percentile: float) -> bool:
    """Whether `calls` support a percentile: at least TAIL_CALLS of them beyond it (p99.9: 10,000 calls)."""
    return calls * (100.0 - percentile) / 100.0 >= TAIL_CALLS - 1e-9


def calls_for(percentile: float) -> int:
    return math.ceil(TAIL_CALLS * 100.0 / (100.0 - percentile) - 1e-9)


def few_calls(cell: Cell, cpus: int) -> Fired | None:
    """Under FEW_CALLS calls; its effect is how far the median's own 95% interval over the calls
    reaches (order statistics of the sampled calls)."""
    if cell.calls >= FEW_CALLS:
        return None
    return Fired(f"only {cell.calls} calls: every statistic is rough", "use --calls 1000 or more",
                 float(cell.calls), _median_reach(stats.samples_us(cell.samples_ns)))


def _median_reach(latencies: np.ndarray) -> float | None:
    """The factor from the median to the farther end of its 95% interval; None without samples."""
    n = latencies.size
    if n < 2:
        return None
    ordered = np.sort(latencies)
    median = float(np.median(ordered))
    half = MEDIAN_Z * math.sqrt(n) / 2
    low, high = ordered[max(int(n / 2 - half), 0)], ordered[min(int(math.ceil(n / 2 + half)), n - 1)]
    return max(float(high) / median, median / float(low)) if low > 0 and median > 0 else None


def unsupported_percentiles(cell: Cell, cpus: int) -> Fired | None:
    """The percentiles too few calls lie beyond: for the views that show them (the full table, the
    exports); the answer shows p99 as "n/s" and says why once, and moves no p50 (effect 1)."""
    if cell.calls < FEW_CALLS:
        return None  # few_calls said it of every statistic
    unsupported = [p for p in hist.PERCENTILES if not supported(cell.calls, p)]
    if not unsupported:
        return None
    names = ", ".join(f"p{p:g}" for p in unsupported)
    which = "it is" if len(unsupported) == 1 else "they are"
    return Fired(f"{cell.calls} calls: fewer than {TAIL_CALLS} lie beyond {names}, so {which} not supported",
                 f"use --calls {calls_for(unsupported[-1]):,} or more", float(cell.calls), 1.0)


def failed_calls(cell: Cell, cpus: int) -> Fired | None:
    if not cell.error_count:
        return None
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(cell.errors.items()))
    return Fired(f"{cell.error_count} failed calls ({kinds}), not in the latency",
                 "error_examples in the results say why", float(cell.error_count))


def other_load(cell: Cell, cpus: int) -> Fired | None:
    """Other processes took CPU time from the cell during its measured phase: processes outside the
    run ran a quarter of a CPU or more, or the server's threads waited in the run queue while they
    ran (both read over the phase itself by process/contention). The wait counts only as far as the
    others' CPU time can explain it: a server's threads also queue behind one another and behind the
    drivers, and that wait is the cell's own. The 1-minute load average is not used: it trails a
    burst by minutes and cannot see one inside a phase.

    Its effect: the phase stretched by the share the server waited, or by the share of the
    machine's CPUs the others took, whichever is more."""
    phase_s = cell.contention.get("phase_s") or 0.0
    if phase_s <= 0:
        return None
    others_s = cell.contention.get("others_cpu_s", 0.0)
    waited = min(cell.contention.get("server_waited_s", 0.0), others_s) / phase_s
    others = others_s / phase_s
    if waited < OTHER_WAIT_SHARE and others < OTHER_CPUS:
        return None
    behind = (f" and the server waited for a CPU up to {waited:.0%} of the measured phase behind them, taking "
              "time from it" if waited >= 0.01 else "")
    effect = max(1 / (1 - min(waited, 0.9)), 1 + others / max(cpus, 1))
    return Fired(f"other load: processes outside the run ran {others:.2f} CPUs beside the cell{behind}",
                 "measure on a quiet machine", others, effect, more="--repeat 3 and compare medians")


def clock_drift(cell: Cell, cpus: int) -> Fired | None:
    before, after = (cell.drift.get(k, {}).get("cpu_mhz") for k in ("before", "after"))
    if not before or not after or abs(after - before) / before <= MHZ_CHANGE:
        return None
    return Fired(f"CPU clock moved from {before:.0f} to {after:.0f} MHz (frequency scaling)",
                 "fix the clock (the performance governor)", abs(after - before) / before,
                 max(before, after) / min(before, after), more="--repeat 3")


def queued_for_connection(cell: Cell, cpus: int) -> Fired | None:
    """--connections over a pool (HTTP/1.1, Thrift: one call at a time on a connection): say what the
    clients did with the connections they had, when waiting for one was most of a call."""
    wait, latency = cell.conn_wait.get("p50_us"), cell.latency.get("p50_us")
    if wait is None or not latency or wait < latency / 2:
        return None
    return Fired(f"its {cell.clients} clients queued for {cell.connections} connection(s), one call at a time on "
                 f"each (at most {cell.inflight_max} in flight): a call waited {wait:,.0f} µs of its {latency:,.0f} "
                 "µs (p50) for a connection, so the pool, not the server, sets this latency",
                 "more --connections shorten the queue", wait / latency)


def _more_cpu(cell: Cell) -> str:
    """What gives a busy client more room: a native client for a Python one (each Python process runs
    on one CPU at a time), fewer clients or more CPUs for a native one."""
    if clients.is_python(cell.client):
        return f"{NATIVE_CLIENT} or fewer clients"
    return "fewer clients, or more CPUs for them (--pin none)"


def client_bottleneck(cell: Cell, cpus: int) -> Fired | None:
    """The client busy on (nearly) all it can use: its CPUs, or for Python clients its processes, each
    of which runs Python on one CPU at a time (the GIL), however many clients it drives."""
    client_cpus = len(cell.placement.get("client_cpus") or []) or cpus
    if clients.is_python(cell.client) and cell.client_processes:
        client_cpus = min(client_cpus, cell.client_processes)
    if cell.wall_s <= 0:
        return None
    busy = (cell.client_cpu_user_s + cell.client_cpu_sys_s) / (cell.wall_s * client_cpus)
    if busy > CLIENT_SATURATED:
        return Fired(f"client used {busy:.0%} of the {client_cpus} CPU(s) it can use: the client, not the server, "
                     "may be the bottleneck", _more_cpu(cell), busy)
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
        f"fewer calls, so the clients, not the server, are the limit; {_more_cpu(g.cells[0])}"))


def late_calls(cell: Cell, cpus: int) -> Fired | None:
    if not cell.late_calls:
        return None
    native = ", or use a native client" if clients.is_python(cell.client) else ""
    return Fired(f"{cell.late_calls} calls started late: the client could not keep the requested rate",
                 f"lower --rate, add clients{native}", float(cell.late_calls))


def delayed_ack(cell: Cell, cpus: int) -> Fired | None:
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
    rpyc = cell.protocol == "rpyc" or cell.contender.startswith("rpyc")
    fix = "set TCP_NODELAY" + (" (for RPyC's client: rpyc-nodelay)" if rpyc and ("client" in off or not off) else
                               " on the server's sockets" if off == ["server"] else "")
    return Fired(f"{share:.0%} of calls took a multiple of ~{DELAYED_ACK_MS:.0f} ms beyond the round trip and "
                 f"{where}: Nagle's algorithm waits for a delayed ACK (40 ms on Linux), which is not the "
                 "protocol's cost", fix, share)


def _server_busy(cell: Cell, cpus: int) -> tuple[float, int] | None:
    """The share of its CPUs the server used in the measured phase, and how many it had (None: unknown)."""
    server_cpus = len(cell.placement.get("server_cpus") or []) or cpus
    spent = cell.server_cpu_us_per_call
    if spent is None or cell.wall_s <= 0 or cell.server_counters_include_warmup:
        return None
    return spent * cell.calls / 1e6 / (cell.wall_s * server_cpus), server_cpus


def server_saturated(cell: Cell, cpus: int) -> Fired | None:
    """The server busy on (nearly) all its CPUs: throughput is its ceiling and latency queues in it."""
    measured = _server_busy(cell, cpus)
    if measured is None or measured[0] <= SERVER_SATURATED:
        return None
    busy, server_cpus = measured
    return Fired(f"server used {busy:.0%} of its {server_cpus} CPU(s): it is saturated, so throughput is its "
                 "ceiling and latency includes queueing in it", "give it more CPUs (--pin none) or use fewer clients",
                 busy)


def schedule_lag(cell: Cell, cpus: int) -> Fired | None:
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
    native = ", use a native client (--client go or rust)" if clients.is_python(cell.client) else ""
    effect = corrected_us / (corrected_us - lag_us) if corrected_us > lag_us else None
    return Fired(f"the driver, not the server, fell behind its schedule, by {_us(lag_us)} at the median "
                 f"({lag_us / corrected_us:.0%} of the corrected p50 of {_us(corrected_us)}; p99 {_us(lag_p99_us)}): "
                 "that lateness is counted as latency",
                 f"keep the client's CPUs free{native}, add clients (-c: every call in flight holds one), or lower "
                 "--rate", lag_us, effect)


def bimodal(cell: Cell, cpus: int) -> Fired | None:
    """Two separate modes in the sampled latencies (a histogram over their logarithm): the median
    can land in either, so its effect is the slow mode over the fast one."""
    latencies = stats.samples_us(cell.samples_ns)
    if latencies.size < BIMODAL_MIN_SAMPLES or np.any(latencies <= 0):
        return None
    found = _two_modes(np.log(latencies))
    if found is None:
        return None
    fast, slow, share = found
    return Fired(f"latency has two modes, near {_us(fast)} and {_us(slow)} ({share:.0%} of calls in the slower): "
                 "a median or mean describes neither",
                 "look at the histogram and for what hits some calls only (GC, a lock, a timer, Nagle, a second "
                 "code path, or other load preempting the processes)", slow / fast, slow / fast)


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


def trend(cell: Cell, cpus: int) -> Fired | None:
    """Calls getting faster or slower over a measured phase of TREND_MIN_PHASE_S or more: the last
    third against the first; its effect is the one's median over the other's.

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
    thirds = f"(median {_us(before)} in its first third, {_us(after)} in its last)"
    effect = max(before, after) / min(before, after)
    if after < before:
        return Fired(f"calls got {1 - after / before:.0%} faster over the measured phase {thirds}: warm-up (JIT, GC, "
                     "caches) was not finished, or other load eased", "use a longer --warmup and check the machine's "
                     "load", 1 - after / before, effect)
    return Fired(f"calls got {after / before - 1:.0%} slower over the measured phase {thirds}: throttling, a "
                 "growing heap or other load", "check the machine's load and CPU clock", after / before - 1, effect,
                 more="--repeat the cell")


# what steady_growth looks at across the intervals (Cell.trends): its name, unit and scale
GROWING = (("p50", "p50_us", "µs", 1.0), ("p99", "p99_us", "µs", 1.0), ("server RSS", "server_rss_bytes", "MB", 1e-6))


def steady_growth(cell: Cell, cpus: int) -> Fired | None:
    """Latency or the server's memory growing steadily over the run, interval after interval: only
    when the trend is real (record.trend: enough intervals, a slope whose 95% interval leaves out
    zero, a fitted growth beyond the interval-to-interval noise), so a short run never says so.
    A growing server's memory is a verdict of its own (a leak); growing latency moves the p50 by its
    fitted change over the phase."""
    grown = {name: fit for name, key, _, _ in GROWING
             if (fit := cell.trends.get(key)) is not None and fit.real and fit.per_min > 0}
    if not grown:
        return None
    said = [f"{name} {grown[name].said(unit, scale)}" for name, _, unit, scale in GROWING if name in grown]
    p50 = grown.get("p50")
    effect = None if "server RSS" in grown else 1.0 if p50 is None else _growth(p50.level, p50.change)
    return Fired(f"{' and '.join(said)} over {len(cell.intervals)} intervals of {cell.interval_s:g} s: growing "
                 "steadily through the run (a leak, a growing heap or queue)",
                 "run longer (--duration) to see whether it levels off, and read the HTML's over-time figure",
                 float(len(cell.intervals)), effect)


def _growth(level: float, change: float) -> float:
    """The fitted line's end over its start, around its mean `level`."""
    start = level - abs(change) / 2
    return (level + abs(change) / 2) / start if start > 0 else math.inf


def _us(value: float) -> str:
    return f"{value / 1e3:.1f} ms" if value >= 1000 else f"{value:.0f} µs"


CELL_CHECKS: tuple[Check, ...] = (
    few_calls, unsupported_percentiles, failed_calls, high_cv, bimodal, trend, steady_growth, client_bottleneck,
    server_saturated,
    other_load, clock_drift, late_calls, schedule_lag, delayed_ack, queued_for_connection)


def trial_spread(g: Group) -> Diagnosis | None:
    """The trials' medians differ by TRIAL_SPREAD or more: as much as the mechanisms being ranked;
    its effect is the slowest trial's median over the fastest's."""
    medians = [m for c in g.cells if c.latency.get("count") and (m := c.latency.get("p50_us"))]
    if len(medians) < 2 or max(medians) < TRIAL_SPREAD * min(medians):
        return None
    spread = max(medians) / min(medians)
    more = max(stats.MIN_TRIALS, len(medians) + 2)
    return Diagnosis("trial_spread", f"medians of the {len(medians)} trials differ ({_us(min(medians))} to "
                     f"{_us(max(medians))}, {spread:.2f}x): results depend on the run; check the machine's load, "
                     f"or --repeat {more}", spread, (spread,))


@dataclass(frozen=True)
class Diagnosis:
    """One check that fired on a group: its name (the check's), its sentence (evidence, what to do),
    how far it could have moved the group's p50 (`effect`, see `Fired`), its figure in each trial it
    fired in, and those trials (numbered from 1, as the README numbers them)."""

    check: str
    text: str
    effect: float | None = None
    figures: tuple[float, ...] = ()
    trials: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        """The machine-readable kind (JSON `kind`, CSV `warning_kinds`): the check's name in kebab case."""
        return self.check.replace("_", "-")

    def to_json(self) -> dict[str, object]:
        """Its kind and sentence, and the trials it fired in when it names them (numbered from 1)."""
        return {"kind": self.kind, "text": self.text, **({"trials": list(self.trials)} if self.trials else {})}


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
        "mechanisms that moved it; pass copies (rpyc's obtain, by value) to compare like for like"),
        None, (moved,))


def diagnoses(g: Group, cpus: int, trials: int | None = None) -> list[Diagnosis]:
    """Every check that fired for a group, said once however many trials it fired in: the sentence
    of the trial where it weighs most, those trials named, and its effect on the group's p50 (the
    geometric mean over the trials, 1 where it did not fire). `trials`: the run's trials of this
    measurement, when the group holds fewer (a single cell of an export)."""
    count = trials or len(g.cells)
    found: list[Diagnosis] = []
    for check in CELL_CHECKS:
        fired = [(cell.trial + 1, said) for cell in g.cells if (said := check(cell, cpus)) is not None]
        if fired:
            found.append(_diagnosis(check.__name__, fired, len(g.cells), count))
    spread = trial_spread(g)
    return found + ([spread] if spread else [])


def _diagnosis(name: str, fired: list[tuple[int, Fired]], cells: int, trials: int) -> Diagnosis:
    effects = [f.effect for _, f in fired]
    effect = None if None in effects else math.exp(sum(math.log(max(e or 1.0, 1.0)) for e in effects) / cells)
    _, worst = max(fired, key=lambda pair: math.inf if pair[1].effect is None else pair[1].effect)
    numbers = [t for t, _ in fired]
    which = "" if cells == 1 else (" (every trial)" if len(numbers) == cells else
                                   f" (trial{'s' * (len(numbers) > 1)} {', '.join(map(str, numbers))})")
    figures = tuple(f.figure for _, f in fired if f.figure is not None)
    return Diagnosis(name, worst.text(trials) + which, effect, figures, tuple(numbers))


def warnings(g: Group, cpus: int) -> list[str]:
    """Every warning for a group, as sentences."""
    return [d.text for d in diagnoses(g, cpus)]


def margins(p50s: Sequence[float], ratios: Sequence[stats.Ratio | None]) -> list[float]:
    """For each entry of one ranking (fastest first; each with its ratio to the fastest, None for the
    fastest), the least factor by which its p50 would have to move to change the answer: to swap
    places with a neighbour, or to turn the verdict of its ratio (significant or not; the fastest's
    p50 moves every ratio). LONE_MARGIN for a contender ranked alone."""
    if len(p50s) < 2:
        return [LONE_MARGIN] * len(p50s)
    turns = [_turn(r) for r in ratios]
    out = []
    for i, p50 in enumerate(p50s):
        near = [max(p50s[j], p50) / min(p50s[j], p50) for j in (i - 1, i + 1)
                if 0 <= j < len(p50s) and min(p50s[j], p50) > 0]
        own = min(turns[1:]) if i == 0 else turns[i]
        out.append(min([*near, own]))
    return out


def _turn(r: stats.Ratio | None) -> float:
    """The factor that turns a ratio's verdict: a significant one's lower end down to 1, a
    not-significant one's interval off 1; none without an interval."""
    if r is None or r.interval is None:
        return math.inf
    low, high = r.interval.low, r.interval.high
    if low > 1:
        return low
    if high < 1:
        return 1 / high
    return min(1 / low, high)


def material(d: Diagnosis, margin: float) -> bool:
    """Whether a diagnosis earns its line where changing the answer takes `margin`: a verdict of its
    own always does; a cause that moves a p50 when it could have moved it by the margin or more."""
    return d.effect is None or (d.effect > 1.0 and d.effect >= margin)


@dataclass(frozen=True)
class Cause:
    """A kind of warning in one line: its name, how one figure of it reads, and what to do."""

    label: str
    unit: str  # a format for one figure: "{:.2f} CPUs"
    fix: str

    def figures(self, values: Sequence[float]) -> str:
        """'0.80 CPUs' or '0.80-1.93 CPUs' (the least and the most of the cells it touched)."""
        if not values or not self.unit:
            return ""
        low, high = self.unit.format(min(values)), self.unit.format(max(values))
        if low == high:
            return low
        number = self.unit.split("}")[-1]
        return f"{low.removesuffix(number)}-{high}" if number and low.endswith(number) else f"{low}-{high}"


CAUSES: dict[str, Cause] = {
    "few_calls": Cause("few calls", "{:,.0f} calls", "use --calls 1000 or more"),
    "unsupported_percentiles": Cause("unsupported percentiles", "{:,.0f} calls", "more --calls"),
    "failed_calls": Cause("failed calls", "{:,.0f} failed", "their error_examples say why"),
    "high_cv": Cause("high CV", "{:.2f}", "read percentiles, not means"),
    "bimodal": Cause("two latency modes", "{:.1f}x apart", "read its histogram"),
    "trend": Cause("drift over the phase", "{:.0%}", "a longer --warmup"),
    "steady_growth": Cause("steady growth", "", "run longer (--duration)"),
    "client_bottleneck": Cause("client CPU-bound", "{:.0%} busy", "fewer clients or a faster client"),
    "server_saturated": Cause("server saturated", "{:.0%} of its CPUs", "more CPUs or fewer clients"),
    "other_load": Cause("other load", "{:.2f} CPUs", "measure on a quiet machine"),
    "clock_drift": Cause("CPU clock moved", "{:.0%}", "the performance governor"),
    "late_calls": Cause("late calls", "{:,.0f}", "lower --rate"),
    "schedule_lag": Cause("driver behind its schedule", "{:,.0f} µs", "keep the client's CPUs free"),
    "delayed_ack": Cause("delayed-ACK stalls", "{:.0%} of calls", "set TCP_NODELAY"),
    "queued_for_connection": Cause("queued for a connection", "{:.0%} of a call", "more --connections"),
    "trial_spread": Cause("trials' medians apart", "{:.2f}x", "more --repeat"),
    "moves_no_data": Cause("moved no data", "{:,.0f} B a call", "pass copies to compare"),
    "below_floor": Cause("faster than its floor", "", "check the machine's load"),
}


def cause(check: str) -> Cause:
    """The one-line form of a kind of warning (its name as is for one without an entry)."""
    return CAUSES.get(check, Cause(check.replace("_", " "), "", ""))
