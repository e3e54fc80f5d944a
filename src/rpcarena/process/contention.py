"""Whether other processes took CPU time from a cell during its measured phase, read from the kernel.

Two readings, at the start and at the end of the phase, and their difference:
- the run-queue wait of the server's threads (`/proc/PID/task/TID/schedstat`, its second field: the
  nanoseconds a thread was runnable but another task held its CPU) — time the cell itself lost;
- the machine's busy CPU time (`/proc/stat`, every CPU) less what rpcarena's own processes spent
  (this process, read here; the server, the drivers and the delay line, as the cell measured
  them): what else ran.

The drivers' threads are not read: they exit as they report their result, so the phase's end finds
none of them to read. The 1-minute load average is not used at all: it trails a burst of load by
minutes and cannot see one inside a phase of a second.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
IDLE_FIELDS = (3, 4)  # idle and iowait in /proc/stat's "cpu" line (user nice system idle iowait irq ...)
GUEST_FIELDS = (8, 9)  # guest and guest_nice are already counted in user and nice


@dataclass(frozen=True)
class Reading:
    """The counters at one instant: monotonic seconds, the server's threads' run-queue wait, the
    machine's busy CPU seconds, and this process's CPU seconds."""

    at_s: float
    waited_s: float
    machine_busy_s: float
    own_cpu_s: float

    def until(self, later: Reading, cell_cpu_s: float) -> dict[str, float]:
        """The phase between two readings, as the cell records it (`Cell.contention`); `cell_cpu_s`:
        what the cell's server, drivers and delay line spent in it."""
        own = later.own_cpu_s - self.own_cpu_s + cell_cpu_s
        return {"phase_s": later.at_s - self.at_s, "server_waited_s": max(later.waited_s - self.waited_s, 0.0),
                "others_cpu_s": max(later.machine_busy_s - self.machine_busy_s - own, 0.0)}


def read(server_pid: int | None) -> Reading:
    """The counters now; a server that is not on this host (a cluster node's) reads as zero wait."""
    return Reading(time.monotonic(), _waited_s(server_pid) if server_pid else 0.0, _machine_busy_s(),
                   time.process_time())


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def _machine_busy_s() -> float:
    fields = [int(v) for v in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    skipped = set(IDLE_FIELDS) | set(GUEST_FIELDS)
    return sum(v for i, v in enumerate(fields) if i not in skipped) / _ticks()


def _waited_s(pid: int) -> float:
    """The run-queue wait of every thread of a process, in seconds (threads that ended are lost)."""
    total = 0
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return 0.0
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the thread ended between the listing and the read
    return total / 1e9
