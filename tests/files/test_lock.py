"""files.lock: one writer per results file; a second is refused at once, naming the first's pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from rpcarena.errors import UsageError
from rpcarena.files import lock

HOLDER = """\
import sys
from rpcarena.files import lock
with lock.held(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def _holder(document) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(document)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


def test_a_second_writer_is_refused_naming_the_first(tmp_path):
    document = tmp_path / "same.json"
    holder = _holder(document)
    try:
        with pytest.raises(UsageError) as refused, lock.held(document):
            pass
        assert f"pid {holder.pid}" in str(refused.value) and "\n" not in str(refused.value)
    finally:
        holder.communicate("")
    with lock.held(document):  # its end released it, and took its lock file with it
        pass
    assert list(tmp_path.iterdir()) == []


def test_a_holder_killed_by_sigkill_holds_nothing(tmp_path):
    document = tmp_path / "same.json"
    holder = _holder(document)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with lock.held(document):
        pass


def test_a_link_planted_at_the_lock_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("mine")
    lock.lock_path(tmp_path / "r.json").symlink_to(victim)
    with pytest.raises(UsageError, match="symbolic link"), lock.held(tmp_path / "r.json"):
        pass
    assert victim.read_text() == "mine"
