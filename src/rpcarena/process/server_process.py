"""A contender's server as a fresh, pinned process, and what the OS says it cost.

CPU time comes from the kernel's accounting of the server process (all its
threads, and its child processes when it has workers): the total to the nanosecond
(`cpu_clock`), the user/system split in scheduler ticks. Memory is its peak RSS. (Bytes on
the wire: see `rpcarena.network.wire`.)
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import psutil

from rpcarena.contract import Ready
from rpcarena.errors import ServerError, WorkerError
from rpcarena.process import children, cpu_clock
from rpcarena.process.children import Child

READY_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Usage:
    """A snapshot of the server's cumulative counters; None where they cannot be read (an
    external server whose pid is not known): not measured, never zero."""

    cpu_user_s: float | None  # user and system: scheduler ticks (10 ms steps)
    cpu_sys_s: float | None
    cpu_s: float | None = None  # on CPU in all, to the nanosecond; None where only ticks were read

    def __sub__(self, other: Usage) -> Usage:
        if self.cpu_user_s is None or self.cpu_sys_s is None or other.cpu_user_s is None or other.cpu_sys_s is None:
            return NOT_MEASURED
        total = None if self.cpu_s is None or other.cpu_s is None else self.cpu_s - other.cpu_s
        return Usage(self.cpu_user_s - other.cpu_user_s, self.cpu_sys_s - other.cpu_sys_s, total)


NOT_MEASURED = Usage(None, None, None)


class Launchable(Protocol):
    """What a server process needs of a contender (a Protocol, so process plumbing stays below
    the contenders that satisfy it)."""

    @property
    def id(self) -> str: ...

    def server_argv(self, host: str, port: int, services: Mapping[str, str]) -> list[str]: ...


class ServerProcess:
    """One server process for one cell."""

    def __init__(self, contender: Launchable, host: str, cpus: tuple[int, ...] | None, log: Path,
                 prefix: list[str] | None = None, services: Mapping[str, str] | None = None) -> None:
        self.contender = contender
        self.services = services or {}  # backing services' URLs, given to the server on its command line
        self.prefix = prefix or []  # e.g. `ip netns exec NS`: runs the server inside a network namespace
        self.host = host
        self.cpus = cpus
        self.log = log
        self.child: Child | None = None
        self._process: psutil.Process | None = None
        self._team: list[psutil.Process] = []  # the processes its ready line declares: itself, its workers
        self.port = 0

    @property
    def target(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def start(self, port: int = 0) -> ServerProcess:
        # stdin stays open: by the worker contract a server also stops when its stdin closes
        argv = self.prefix + self.contender.server_argv(self.host, port, self.services)
        self.child = Child(argv, self.cpus, self.log, stdin=True)
        line = self.child.read_json(READY_TIMEOUT_S)
        if not line or line.get("event") != "ready":
            reason = self._why_not_ready(self.child)
            self.stop()
            raise ServerError(f"{self.contender.id} server did not start ({reason}); full log: {self.log}")
        try:
            ready = Ready.from_json(line)
        except WorkerError as error:
            self.stop()
            raise WorkerError(f"{self.contender.id} server: {error}; full log: {self.log}") from None
        self.port = ready.port
        self._process = self._main_process(self.child)
        self._team = [self._process] + _processes(ready.workers or [])
        return self

    def _main_process(self, child: Child) -> psutil.Process:
        """The server itself: under a prefix (`ip netns exec` forks), the prefix's child."""
        process = psutil.Process(child.pid)
        if self.prefix:
            children = process.children()
            return children[0] if children else process
        return process

    @staticmethod
    def _why_not_ready(child: Child) -> str:
        try:
            child.proc.wait(5)  # it closed its output: let it finish dying, then read why
        except subprocess.TimeoutExpired:
            return f"no ready line within {READY_TIMEOUT_S:.0f} s"
        return child.last_error_line()

    def alive(self) -> bool:
        """Its process still running, and every process it declared the very one it declared
        (a worker that died, or was replaced by a new one, makes the server not the one measured)."""
        return self.child is not None and self.child.alive() and self._replaced() is None

    def _replaced(self) -> psutil.Process | None:
        for process in self._team:
            try:
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    continue
            except psutil.Error:
                pass
            return process
        return None

    def died_message(self) -> str:
        assert self.child is not None
        if self.child.alive() and (gone := self._replaced()) is not None:
            return (f"{self.contender.id} server's process {gone.pid} died or was replaced during the cell; "
                    f"full log: {self.log}")
        lines = [line for line in self.child.stderr_tail().splitlines() if line.strip()]
        said = f": {lines[-1].strip()}" if lines else ""
        return f"{self.contender.id} server died ({self.child.ended()}{said}); full log: {self.log}"

    def state(self) -> str | None:
        """'stopped' when the server is suspended (SIGSTOP, a debugger), else None."""
        try:
            return "stopped" if self._process is not None and self._process.status() in children.STOPPED else None
        except psutil.Error:
            return None

    @property
    def pid(self) -> int | None:
        if self.child is None:
            return None
        return self._process.pid if self._process is not None else self.child.pid

    def usage(self) -> Usage:
        if self._process is None:
            raise ServerError(f"{self.contender.id} server is not running")
        try:
            return process_usage(self._process)
        except psutil.Error:
            raise ServerError(self.died_message()) from None

    def peak_rss_bytes(self) -> int | None:
        return peak_rss_bytes(self.pid) if self.pid is not None else None

    def reset_peak_rss(self) -> bool:
        """Start its peak RSS afresh (a server kept from cell to cell: each cell's peak its own); False
        where that cannot be done (then its peak is its whole life's, and it must not be kept)."""
        return all([reset_peak_rss(process.pid) for process in self._team])

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _processes(pids: list[object]) -> list[psutil.Process]:
    found = []
    for pid in pids:
        try:
            found.append(psutil.Process(int(str(pid))))
        except (psutil.Error, ValueError):
            continue  # gone before it was ready: the server reports that itself, on stderr
    return found


def process_usage(process: psutil.Process) -> Usage:
    """CPU time of a process, its reaped children and its live descendants (psutil.Error when gone).
    Reaped children are known only in ticks; the rest to the nanosecond."""
    cpu = process.cpu_times()
    reaped = cpu.children_user + cpu.children_system
    user, system = cpu.user + cpu.children_user, cpu.system + cpu.children_system
    main_ns = cpu_clock.process_cpu_ns(process.pid)
    total = None if main_ns is None else main_ns / 1e9 + reaped
    for child in process.children(recursive=True):  # a server made of several processes (typed-json's workers)
        try:
            times = child.cpu_times()
        except psutil.Error:
            continue
        # what it reaped of its own children: a grandchild that ended would otherwise drop out of the sum
        user, system = user + times.user + times.children_user, system + times.system + times.children_system
        ns = cpu_clock.process_cpu_ns(child.pid)
        if total is not None:
            own = times.user + times.system if ns is None else ns / 1e9  # gone in between: its last ticks
            total += own + times.children_user + times.children_system
    return Usage(user, system, total)


def peak_rss_bytes(pid: int) -> int | None:
    """The process's peak resident set size over its whole life (VmHWM), when readable."""
    return _status_bytes(pid, "VmHWM:")


def reset_peak_rss(pid: int) -> bool:
    """Set the process's VmHWM to its RSS now (Linux's clear_refs "5"); False where it cannot be written."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def rss_bytes(pid: int) -> int | None:
    """The process's resident set size now (VmRSS), when readable: sampled over a soak, it shows growth."""
    return _status_bytes(pid, "VmRSS:")


def _status_bytes(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None
