"""A child process that is gone before it reads its input is the child's failure, named with its
last words, never a broken pipe that the command would take for its own output closed."""

from __future__ import annotations

import time

import pytest

from rpcarena.errors import WorkerError
from rpcarena.process.children import Child


def test_a_child_gone_before_its_input_fails_naming_its_last_line(tmp_path):
    child = Child(["sh", "-c", "echo 'cannot start: no such module' >&2; exit 3"], None, tmp_path / "c.log",
                  stdin=True)
    deadline = time.monotonic() + 10
    while child.proc.poll() is None:
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    with pytest.raises(WorkerError, match=r"^sh exited before reading its input: cannot start: no such module \(log: "):
        child.send('{"calls": 1}')
    child.close_stdin()  # and what follows (the phase's teardown) does not trip on the pipe again
