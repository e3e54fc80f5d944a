"""Instability warnings: reasons not to trust a number, said next to it.

Each check looks at one cell (or the trials of one group) and returns a short
sentence, or nothing. The thresholds are deliberately plain and listed here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rpcarena.analysis import stats
from rpcarena.analysis.groups import Group
from rpcarena.results import Cell

HIGH_CV = 1.0  # SD above the mean: a long tail or a bimodal distribution
TRIAL_CV = 0.10  # medians of repeated trials differing by more than 10%
FEW_CALLS = 100
P99_CALLS = 1000  # below this, p99 rests on fewer than 10 calls
LOAD_CHANGE = 1.0
MHZ_CHANGE = 0.05
CLIENT_SATURATED = 0.90
DELAYED_ACK_MS = 40.0  # Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN)
DELAYED_ACK_EARLY_MS = 2.0  # a timer may fire a little early
DELAYED_ACK_REST_MS = 12.0  # what a stalled call may spend on its own work
DELAYED_ACK_SHARE = 0.4  # of the sampled calls
DELAYED_ACK_MIN_CALLS = 20


def high_cv(cell: Cell, cpus: int) -> str | None:
    cv = cell.latency.get("cv")
    if cv is not None and cv > HIGH_CV:
        return f"high CV {cv:.2f}: call latency varies more than its mean (long tail or two modes)"
    return None


def few_calls(cell: Cell, cpus: int) -> str | None:
    if cell.calls < FEW_CALLS:
        return f"only {cell.calls} calls: every statistic is rough; use --calls 1000 or more"
    if cell.calls < P99_CALLS:
        return f"{cell.calls} calls: p99 rests on fewer than 10 calls; use --calls {P99_CALLS} or more"
    return None


def failed_calls(cell: Cell, cpus: int) -> str | None:
    if not cell.error_count:
        return None
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(cell.errors.items()))
    return f"{cell.error_count} failed calls ({kinds}), not in the latency"


def load_drift(cell: Cell, cpus: int) -> str | None:
    before, after = (cell.drift.get(k, {}).get("loadavg_1m") for k in ("before", "after"))
    if before is None or after is None:
        return None
    if max(before, after) > cpus:
        return f"machine busy: load average {max(before, after):.1f} on {cpus} CPUs"
    if abs(after - before) > LOAD_CHANGE:
        return f"load average moved from {before:.1f} to {after:.1f} during the cell"
    return None


def clock_drift(cell: Cell, cpus: int) -> str | None:
    before, after = (cell.drift.get(k, {}).get("cpu_mhz") for k in ("before", "after"))
    if not before or not after:
        return None
    if abs(after - before) / before > MHZ_CHANGE:
        return f"CPU clock moved from {before:.0f} to {after:.0f} MHz (frequency scaling)"
    return None


def client_bottleneck(cell: Cell, cpus: int) -> str | None:
    client_cpus = len(cell.placement.get("client_cpus") or []) or cpus
    if cell.wall_s <= 0:
        return None
    busy = (cell.client_cpu_user_s + cell.client_cpu_sys_s) / (cell.wall_s * client_cpus)
    if busy > CLIENT_SATURATED:
        return (f"client used {busy:.0%} of its {client_cpus} CPU(s): the client may be the bottleneck; "
                "use a native client (--client go) or fewer clients")
    return None


def late_calls(cell: Cell, cpus: int) -> str | None:
    if cell.late_calls:
        return f"{cell.late_calls} calls started late: the client could not keep the requested rate"
    return None


def delayed_ack(cell: Cell, cpus: int) -> str | None:
    """Latency clustered at multiples of Linux's delayed-ACK timer above the link's round trip:
    the signature of Nagle's algorithm holding a small write until the peer's ACK comes."""
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
    return (f"{share:.0%} of calls took a multiple of ~{DELAYED_ACK_MS:.0f} ms beyond the round trip and {where}: "
            "Nagle's algorithm waits for a delayed ACK (40 ms on Linux), which is not the protocol's cost; "
            "set TCP_NODELAY (for RPyC: rpyc-nodelay)")


CELL_CHECKS: tuple[Callable[[Cell, int], str | None], ...] = (
    few_calls, failed_calls, high_cv, client_bottleneck, load_drift, clock_drift, late_calls, delayed_ack)


def trial_spread(g: Group) -> str | None:
    medians = [c.latency.get("p50_us") for c in g.cells if c.latency.get("count")]
    spread = stats.cv([m for m in medians if m is not None])
    if spread is not None and spread > TRIAL_CV:
        return f"medians of the {len(medians)} trials differ (CV {spread:.2f}): results depend on the run"
    return None


def warnings(g: Group, cpus: int) -> list[str]:
    """Every warning for a group; a check that fires in several trials is said once."""
    found: list[str] = []
    for check in CELL_CHECKS:
        fired = [(cell.trial, text) for cell in g.cells if (text := check(cell, cpus))]
        if fired:
            trials = "" if len(g.cells) == 1 else f" (trial {', '.join(str(t) for t, _ in fired)})"
            found.append(fired[0][1] + trials)
    spread = trial_spread(g)
    return found + ([spread] if spread else [])
