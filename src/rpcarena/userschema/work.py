"""A handler's own cost: `--server-work 300us` of CPU and `--server-wait 2ms` of waiting.

The CPU is spent in a loop until the handler thread's own CPU clock has advanced by the asked
microseconds, so they are CPU, not wall time that a preempted server would stretch, and they stay
right when a busy machine slows the loop (a rate calibrated once would not: on 2 shared cores it
was off by 20-80%). The loop runs in chunks calibrated when the server starts (`CHUNK_US` of CPU
each, or a twentieth of the work if less), so the clock is read a few dozen times a call and the
overshoot is at most a chunk. The wait sleeps, as a database call does, without CPU.
`benchmarks/server_work.py` checks the calibration against the server's measured CPU per call.
"""

from __future__ import annotations

import time
from collections.abc import Callable

CALIBRATION_ROUNDS = 5
CALIBRATION_LOOPS = 200_000
CHUNK_US = 10.0


def _spin(loops: int) -> int:
    total = 0
    for i in range(loops):
        total += i * i % 7
    return total


def loops_per_us() -> float:
    """How many `_spin` loops this process runs in a microsecond of its own CPU."""
    best = float("inf")
    for _ in range(CALIBRATION_ROUNDS):
        start = time.thread_time_ns()
        _spin(CALIBRATION_LOOPS)
        best = min(best, time.thread_time_ns() - start)
    return CALIBRATION_LOOPS / max(best / 1000, 1e-3)


def handler_cost(work_us: float, wait_us: float) -> tuple[Callable[[], None], str]:
    """(what a handler runs before it answers, the calibration as the server's log records it)."""
    if not work_us and not wait_us:
        return (lambda: None), "no server work or wait"
    rate = loops_per_us() if work_us else 0.0
    chunk = max(1, round(min(CHUNK_US, work_us / 20) * rate))
    work_ns, wait_s, clock = int(work_us * 1000), wait_us / 1e6, time.thread_time_ns

    def cost() -> None:
        if work_ns:
            start = clock()
            while clock() - start < work_ns:
                _spin(chunk)
        if wait_s:
            time.sleep(wait_s)
    return cost, (f"server work {work_us:g}us of thread CPU, in chunks of {chunk} loops ({rate:.1f} loops/us), "
                  f"wait {wait_us:g}us")
