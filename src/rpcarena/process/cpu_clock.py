"""A process's CPU time in nanoseconds, the threads that already exited included.

The kernel keeps each thread's time on CPU to the nanosecond (`sum_exec_runtime`, the
first field of `/proc/PID/task/TID/schedstat`) and adds an exiting thread's to its
process. The process's CPU-time clock (`clock_getcpuclockid`) reads that sum, live and
exited threads alike; summing `task/*/schedstat` instead would lose every thread that
ended during the phase (a thread per connection), and `/proc/PID/stat`'s user and
system times move in scheduler ticks (10 ms: 20 µs a call over 500 calls).
"""

from __future__ import annotations

import time

CPUCLOCK_SCHED = 2  # the clock that counts scheduled time, at ns resolution (linux/posix-timers.h)


def process_clock_id(pid: int) -> int:
    """What glibc's clock_getcpuclockid(pid) returns: the clock of the whole thread group."""
    return ((~pid) << 3) | CPUCLOCK_SCHED


def process_cpu_ns(pid: int) -> int | None:
    """Nanoseconds the process `pid` (every thread it ever had) spent on a CPU; None once it is gone."""
    try:
        return time.clock_gettime_ns(process_clock_id(pid))
    except OSError:
        return None

