"""When each call should start, for open-loop load (wrk2's pacing).

A pacer yields intended start offsets in nanoseconds from the start of the
measured phase. Latency is then measured from the intended start, so a server
that stalls cannot hide the calls that piled up behind the stall.
"""

from __future__ import annotations

import bisect
import ctypes
import itertools
import random
import threading
import time
from collections.abc import Iterator

from rpcarena.contract import ARRIVALS

# The last stretch before a call is due is spun (yielding the GIL), not slept: a sleep wakes up
# late by the thread's timer slack (50 us by default) and by the scheduler's wake-up.
SPIN_NS = 150_000
PR_SET_TIMERSLACK, SLACK_NS = 29, 1_000


def offsets_ns(rate_per_s: float, arrival: str = "constant", seed: int = 1) -> Iterator[int]:
    """Intended start offsets of successive calls at `rate_per_s` calls per second."""
    if rate_per_s <= 0:
        raise ValueError("rate must be positive")
    if arrival not in ARRIVALS:
        raise ValueError(f"arrival must be one of {ARRIVALS}")
    interval = 1e9 / rate_per_s
    if arrival == "constant":
        k = 0
        while True:
            yield round(k * interval)
            k += 1
    rng = random.Random(seed)
    t = 0.0
    while True:
        yield round(t)
        t += rng.expovariate(1.0) * interval


def staged_offsets_ns(stages: list[dict[str, float]], arrival: str = "constant", seed: int = 1) -> Iterator[int]:
    """Offsets through each stage in turn, each at its own rate from its own start (k6's ramping
    arrival rate, in steps); the last stage's end ends them."""
    begin = 0
    for stage in stages:
        span = round(stage["duration_s"] * 1e9)
        for offset in offsets_ns(stage["rate_per_s"], arrival, seed):
            if offset >= span:
                break
            yield begin + offset
        begin += span


def stage_ends_ns(stages: list[dict[str, float]]) -> list[int]:
    """Each stage's end, as an offset from the phase's start."""
    return list(itertools.accumulate(round(s["duration_s"] * 1e9) for s in stages))


class Schedule:
    """The open loop's calls, due over all clients together, each taken by whichever client is free.

    A client that is held up by a slow call does not hold up the calls due after it: the next
    free client takes them (wrk2 gives each connection its own rate, which lets one stalled
    connection delay its share; ghz and k6 hand calls to free workers, as here)."""

    def __init__(self, rate_per_s: float, arrival: str, start_ns: int, calls: int | None, end_ns: int,
                 stages: list[dict[str, float]] | None = None, shift_ns: int = 0) -> None:
        """`shift_ns` (DriveSpec.schedule_offset_ns) delays every call of this driver's schedule, so
        several drivers of one cell interleave; it also seeds Poisson arrivals apart, as drivers
        with one seed would draw the same gaps and send together."""
        seed = 1 + shift_ns
        self._offsets = (staged_offsets_ns(stages, arrival, seed) if stages else offsets_ns(rate_per_s, arrival, seed))
        self._ends = stage_ends_ns(stages or [])
        self._lock = threading.Lock()
        self.start_ns, self.left, self.end_ns = start_ns + shift_ns, calls, end_ns

    def stage(self, due_ns: int) -> int:
        """The stage a call due at `due_ns` belongs to (0 without stages)."""
        return min(bisect.bisect_right(self._ends, due_ns - self.start_ns), max(len(self._ends) - 1, 0))

    def next(self) -> int | None:
        """When the next call is due (perf_counter ns), or None when the phase has no more calls."""
        with self._lock:
            if self.left == 0:
                return None
            offset = next(self._offsets, None)
            if offset is None:  # the last stage has ended
                return None
            due = self.start_ns + offset
            if self.left is None:
                return due if due < self.end_ns else None
            self.left -= 1
            return due


def fine_timers() -> None:
    """Ask the kernel to wake this thread within ~1 us of its deadline (the default slack is 50 us).

    Linux only, and only for the calling thread; elsewhere the spin in `wait_until` covers it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, SLACK_NS, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def wait_until(due_ns: int) -> None:
    """Sleep coarse, finish fine: sleep to SPIN_NS before `due_ns`, then yield until it is due.

    `time.sleep(0)` lets other client threads have the GIL, so the spin costs them nothing but
    this thread's CPU for at most SPIN_NS a call."""
    remaining = due_ns - time.perf_counter_ns()
    if remaining > SPIN_NS:
        time.sleep((remaining - SPIN_NS) / 1e9)
    while time.perf_counter_ns() < due_ns:
        time.sleep(0)
