"""A build that waits for another rpcarena's build lock says whose, and the wait is not its build time
(issue 40: `run --proto` waited six minutes in silence, then reported the wait as its build)."""

from __future__ import annotations

import os
import subprocess
import sys

from rpcarena.commands.schema_variants import built_in
from rpcarena.process import builds

HOLD = """
import fcntl, os, sys, time
held = open(sys.argv[1], "a+")
fcntl.flock(held, fcntl.LOCK_EX)
held.seek(0); held.truncate(); held.write(str(os.getpid())); held.flush()
print("held", flush=True)
sys.stdin.readline()  # until the test lets go
"""


def test_a_held_lock_is_awaited_out_loud_naming_its_holder(tmp_path):
    path = tmp_path / "lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    said: list[str] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"

        def waiting(line: str) -> None:  # told before the wait: let the holder go now
            said.append(line)
            assert holder.stdin is not None
            holder.stdin.close()
        with open(path, "a+") as lock:
            builds._lock(lock, "rust", waiting)
            assert path.read_text() == str(os.getpid())  # the lock now names this process
    finally:
        holder.kill()
        holder.wait()
    assert said == [f"waiting for another rpcarena's Rust build (pid {holder.pid})"]


def test_a_free_lock_is_taken_without_a_word(tmp_path):
    said: list[str] = []
    with open(tmp_path / "lock", "a+") as lock:
        assert builds._lock(lock, "go", said.append) == 0.0
    assert said == []


def test_the_wait_is_not_counted_as_the_build():
    assert built_in(400.0, 399.5) == "built by another rpcarena while this one waited 400 s"
    assert built_in(460.0, 400.0) == "first build in 60.0 s (after waiting 400 s for another rpcarena's build)"
    assert built_in(41.0, 0.0) == "first build in 41.0 s"
