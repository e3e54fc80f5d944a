"""What a command under test started, read while it runs (its process tree, its results file)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import psutil
import pytest

import rpcarena
from rpcarena import contenders
from rpcarena.errors import UsageError
from rpcarena.process.children import signal_group


def descendants(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def command_of(proc: psutil.Process) -> str:
    """The process's command line, or "" once it is gone or a zombie (it can die between the
    listing and the read)."""
    try:
        return " ".join(proc.cmdline())
    except psutil.Error:
        return ""


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie not yet reaped counts: it runs nothing)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_for(predicate, timeout_s: float = 60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not reached")


def cells_in(path) -> int:
    """The cells a run has saved so far: its document's and its journal's."""
    try:
        return len(rpcarena.load(path).cells)
    except UsageError:
        return 0


def server_of(cli: psutil.Process, contender: str):
    """The contender's server once a driver has connected to it (drivers start before their server is up)."""
    for child in descendants(cli):
        command = command_of(child)
        if "rpcarena.python_server.serve" in command and contender in command.split():
            return child if connected(child.pid) else None
    return None


def connected(pid: int) -> bool:
    """Whether the process holds an established TCP connection, read in its own network namespace
    (/proc/PID/net/tcp*: a server behind a link is in another one than the test)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")}
        rows = [line.split() for name in ("tcp", "tcp6") for line in open(f"/proc/{pid}/net/{name}").readlines()[1:]]
    except OSError:
        return False
    return any(row[3] == "01" and row[9] in inodes for row in rows)  # 01: ESTABLISHED


def available(contender_id: str) -> None:
    """Skip the test where the contender cannot run (a toolchain missing), except in CI, where it must."""
    reason = contenders.get(contender_id).unavailable()
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


def end_session(proc, grace_s: float = 10.0) -> None:
    """End a server the test started in a session of its own (`start_new_session`) and whatever it spawned:
    SIGTERM to the group, then SIGKILL to what is left after `grace_s`. A SIGKILL at once also killed
    hypercorn's multiprocessing resource tracker before it unlinked the worker's semaphores: 5 files in
    /dev/shm left by every run of such a test."""
    signal_group(proc, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace_s)
    signal_group(proc, signal.SIGKILL)  # what outlived the leader, or a leader that would not go
    proc.wait(grace_s)
