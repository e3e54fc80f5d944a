"""A build step that does not end normally is killed with everything it started (issue 39's flake pass:
SIGTERM to a run building a Rust variant killed cargo, and the rustc cargo had started compiled on)."""

from __future__ import annotations

import os
import signal

import pytest

from rpcarena.process import builds
from tests.helpers.processes import gone, wait_for


class Stopped(Exception):
    """What a stop signal raises where the program is (as rpcarena's `Stop` does)."""


def test_a_step_stopped_midway_leaves_none_of_its_processes(tmp_path):
    """The step's shell starts a compiler of its own (a `sleep` here) and waits for it; a stop signal
    arrives once that compiler runs."""
    started = tmp_path / "compiler.pid"
    argv = ["sh", "-c", f"sleep 300 & echo $! > {started}.tmp && mv {started}.tmp {started}; wait"]

    def stop(signum, frame):
        if not started.exists():
            signal.setitimer(signal.ITIMER_REAL, 0.05)  # not yet: look again
            return
        raise Stopped

    before = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with open(tmp_path / "build.log", "w") as out, pytest.raises(Stopped):
            builds.run_step(argv, tmp_path, out, dict(os.environ))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    compiler = int(started.read_text())
    wait_for(lambda: gone(compiler), 10)  # raises if the step's compiler outlived the stopped build


def test_a_step_that_ends_gives_its_exit_code(tmp_path):
    with open(tmp_path / "build.log", "w") as out:
        assert builds.run_step(["sh", "-c", "echo built; exit 3"], tmp_path, out, dict(os.environ)) == 3
    assert (tmp_path / "build.log").read_text() == "built\n"
