"""What a command under test started, read while it runs (its process tree, its results file)."""

from __future__ import annotations

import os
import time

import psutil
import pytest

import rpcarena
from rpcarena import contenders
from rpcarena.errors import UsageError


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
    for child in descendants(cli):
        command = command_of(child)
        if "rpcarena.worker.serve" in command and contender in command.split():
            drivers = [c for c in descendants(cli) if "rpcarena.worker.drive" in command_of(c)]
            return child if drivers else None
    return None


def available(contender_id: str) -> None:
    """Skip the test where the contender cannot run (a toolchain missing), except in CI, where it must."""
    reason = contenders.get(contender_id).unavailable()
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)
