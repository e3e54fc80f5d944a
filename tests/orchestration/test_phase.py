"""A cell's driver processes: the calls, rate and samples split among them, and a result written as one exits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rpcarena.contract import DriveSpec
from rpcarena.errors import WorkerError
from rpcarena.orchestration import phase


def _spec(**values) -> DriveSpec:
    return DriveSpec(contender="grpc-py", target="127.0.0.1:1", method="Void", requests=[{}], **values)


def test_split_shares_clients_calls_rate_and_samples():
    parts = phase.split(_spec(clients=5, calls=1001, sample_limit=100), procs=2)
    assert [p.clients for p in parts] == [3, 2]
    assert sum(p.calls for p in parts) == 1001
    assert all(p.sample_limit == 50 for p in parts)
    assert len(phase.split(_spec(clients=2, calls=10), procs=16)) == 2
    paced = phase.split(_spec(clients=4, duration_s=1.0, rate_per_s=1000.0), procs=2)
    assert [p.rate_per_s for p in paced] == [500.0, 500.0] and all(p.calls is None for p in paced)


class _ExitedDriver:
    """A driver process that has exited; its unread output lines (None: a read that timed out)."""

    log = Path("driver-0.log")

    def __init__(self, reads: list) -> None:
        self.reads = reads

    def read_json(self, timeout_s: float) -> dict | None:
        return self.reads.pop(0) if self.reads else None

    def alive(self) -> bool:
        return False

    def last_error_line(self) -> str:
        return "no message; exit code 0"


def test_a_result_written_just_before_the_driver_exits_is_kept():
    drive = phase.Phase([], None, Path("."), lambda: True, lambda: "")
    wants_result = lambda m: "calls" in m  # noqa: E731
    # The first read timed out; the driver then wrote its result and exited before the check.
    assert drive._await(_ExitedDriver([None, {"calls": 3}]), time.monotonic() + 5, wants_result) == {"calls": 3}
    with pytest.raises(WorkerError, match="client driver failed: no message; exit code 0"):
        drive._await(_ExitedDriver([None]), time.monotonic() + 5, wants_result)
