"""Which CPUs the server and the clients run on.

On a small VM, placement decides latency: a ping-pong between two processes on
one vCPU costs ~5 us here, across vCPUs ~84 us (waking the other vCPU). So the
arena pins its processes and records where each ran.

- split: the server on the first half of the CPUs, the clients on the rest;
- same:  everything on the first CPU;
- none:  no pinning (the scheduler decides; results vary run to run).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rpcarena.errors import UsageError

POLICIES = ("split", "same", "none")


@dataclass(frozen=True)
class Placement:
    policy: str
    server: tuple[int, ...] | None
    clients: tuple[int, ...] | None

    def as_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "server_cpus": list(self.server) if self.server else None,
                "client_cpus": list(self.clients) if self.clients else None}


def available_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def plan(policy: str, cpus: list[int] | None = None) -> Placement:
    """The CPUs for each side under a policy, from the CPUs this process may use."""
    if policy not in POLICIES:
        raise UsageError(f"unknown --pin {policy!r}: use one of {', '.join(POLICIES)}")
    cpus = cpus if cpus is not None else available_cpus()
    if policy == "none":
        return Placement(policy, None, None)
    if policy == "same" or len(cpus) < 2:
        return Placement(policy if len(cpus) >= 2 else "same", (cpus[0],), (cpus[0],))
    half = len(cpus) // 2
    return Placement(policy, tuple(cpus[:half]), tuple(cpus[half:]))


def pin(pid: int, cpus: tuple[int, ...] | None) -> None:
    """Pin a process (its threads created later inherit it)."""
    if cpus:
        os.sched_setaffinity(pid, cpus)


def where(pid: int) -> list[int] | None:
    try:
        return sorted(os.sched_getaffinity(pid))
    except OSError:
        return None


def preexec(cpus: tuple[int, ...] | None, die_with_parent: bool = True) -> Callable[[], None]:
    """A preexec_fn: own process group, killed if rpcarena dies (unless it must outlive it to clean
    up), pinned before it runs anything."""
    def run() -> None:
        os.setpgrp()
        if die_with_parent:
            _die_with_parent()
        if cpus:
            os.sched_setaffinity(0, cpus)
    return run


def _die_with_parent() -> None:
    import ctypes
    import signal

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
