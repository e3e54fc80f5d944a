"""Whether other processes took CPU time from a cell during its measured phase, read from the kernel.

Two readings, at the start and at the end of the phase, and their difference:
- the run-queue wait of the server's threads (`/proc/PID/task/TID/schedstat`, its second field: the
  nanoseconds a thread was runnable but another task held its CPU) — time the cell itself lost;
- the CPU time (`/proc/PID/stat`: utime + stime, and cutime + cstime, what the children it reaped
  ran) of every process that is not the run's: not this process (the orchestrator) nor any of its
  descendants (the server, the drivers, the delay line, HAProxy), not a target's server that the
  run did not start (`--server-pid`) nor its children, and not a kernel thread (softirq work for
  the cell's own loopback traffic runs in ksoftirqd). What else ran, by name of who ran it.

Neither reading alone proves that another process ran: the server's threads also wait behind one
another (a Python server's threads queue for the GIL and for the CPUs), and the machine's busy time
in `/proc/stat` includes the interrupts the cell's own traffic raises. So the busy time is summed
over the other processes only, and the wait is judged against it (analysis/stability.other_load).

A process that started during the phase counts in full. One that ended in it is counted through
its parent's children's time once reaped (a compiler that `make` runs for a second is seen), less
what it ran before the phase; one not yet reaped at the phase's end is a zombie, still read. The
1-minute load average is not used at all: it trails a burst of load by minutes and cannot see one
inside a phase of a second.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
PF_KTHREAD = 0x00200000  # in /proc/PID/stat's flags: a kernel thread
# Fields of /proc/PID/stat after the command's closing parenthesis, counted from 0 at its state.
PPID, FLAGS, STARTTIME = 1, 6, 19
CPU_FIELDS = (11, 12, 13, 14)  # utime, stime, and cutime, cstime: the children it reaped


@dataclass(frozen=True)
class Reading:
    """The counters at one instant: monotonic seconds, the server's threads' run-queue wait, and the
    CPU ticks of every process outside the run, keyed by (pid, start time) so a reused pid is new."""

    at_s: float
    waited_s: float
    others_ticks: Mapping[tuple[int, int], int]

    def until(self, later: Reading) -> dict[str, float]:
        """The phase between two readings, as the cell records it (`Cell.contention`). A process that
        ended in the phase went into its parent's children's time whole: what it had run before the
        phase is taken off again."""
        grown = sum(max(t - self.others_ticks.get(key, 0), 0) for key, t in later.others_ticks.items())
        ended = sum(t for key, t in self.others_ticks.items() if key not in later.others_ticks)
        return {"phase_s": later.at_s - self.at_s, "server_waited_s": max(later.waited_s - self.waited_s, 0.0),
                "others_cpu_s": max(grown - ended, 0) / _ticks()}


def read(server_pid: int | None) -> Reading:
    """The counters now; a server that is not on this host (a cluster node's) reads as zero wait. The
    server and what it started are the cell's even when the run did not start it (a target's
    --server-pid)."""
    roots = {os.getpid()} | ({server_pid} if server_pid else set())
    return Reading(time.monotonic(), _waited_s(server_pid) if server_pid else 0.0, _others_ticks(roots))


def _ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class _Stat:
    pid: int
    ppid: int
    kernel: bool
    cpu_ticks: int
    started: int


def _others_ticks(roots: set[int]) -> dict[tuple[int, int], int]:
    """The CPU ticks of each user process that is neither one of `roots` nor one of their descendants."""
    stats = [s for s in map(_stat, _pids()) if s is not None]
    ours = _descendants(roots, stats)
    return {(s.pid, s.started): s.cpu_ticks for s in stats if not s.kernel and s.pid not in ours}


def _pids() -> list[int]:
    return [int(name) for name in os.listdir(PROC) if name.isdigit()]


def _stat(pid: int) -> _Stat | None:
    """One process's /proc/PID/stat; None when it ended between the listing and the read."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the command may hold spaces and parentheses
    return _Stat(pid, int(fields[PPID]), bool(int(fields[FLAGS]) & PF_KTHREAD),
                 sum(int(fields[i]) for i in CPU_FIELDS), int(fields[STARTTIME]))


def _descendants(roots: set[int], stats: list[_Stat]) -> set[int]:
    """`roots` and every process below them, from the parent links of one listing."""
    children: dict[int, list[int]] = {}
    for s in stats:
        children.setdefault(s.ppid, []).append(s.pid)
    found, todo = set(roots), list(roots)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


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
