"""The drill's two runs on one --out: the second is refused at once naming the first's pid, and the
first keeps its file (issue 42, "One writer per results file"). Then kill -9 of the orchestrator
mid-run loses at most the cell in flight, and --resume completes the run (issue 43, saving).
"""

from __future__ import annotations

import os
import signal
import threading

from rpcarena.files import lock
from rpcarena.results import load
from tests.conftest import popen_cli, run_cli, wait_for

CELL = ("run", "--contender", "tcp-raw", "--warmup", "0")
TIMEOUT_S = 180


def _holding(out, pid: int) -> bool:
    try:
        return lock.lock_path(out).read_text().strip() == str(pid)
    except OSError:
        return False


def test_a_second_run_on_the_same_out_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "same.json"
    first = popen_cli(*CELL, "--workload", "usp.void", "-z", "4s", "-o", str(out))
    try:
        wait_for(lambda: _holding(out, first.pid), 60)
        for argv in (["-o", str(out)], ["-o", str(out), "--force"], ["--resume", str(out)]):
            second = run_cli(*CELL, "--workload", "usp.int32", "-z", "1s", *argv, timeout=TIMEOUT_S)
            lines = second.stderr.strip().splitlines()
            assert second.returncode == 2 and len(lines) == 1, second.stderr
            assert f"pid {first.pid}" in lines[0] and str(out) in lines[0], lines
        _, stderr = first.communicate(timeout=TIMEOUT_S)
    finally:
        first.kill()
    assert first.returncode == 0, stderr
    assert [(c.workload, c.status) for c in load(out).cells] == [("usp.void", "ok")]


KEYS = ("usp.void,usp.int32,usp.distance", "--repeat", "2", "--calls", "300")


def _progress(cli, done: list[str]) -> threading.Thread:
    """Collect the CLI's progress lines (one per cell ended, stderr not being a terminal)."""
    def read() -> None:
        for line in cli.stderr:
            if line.startswith("cell "):
                done.append(line)
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_kill_9_mid_run_loses_at_most_the_cell_in_flight_and_resume_completes_it(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli(*CELL, "--workload", *KEYS, "-o", str(out))
    ended: list[str] = []
    reader = _progress(cli, ended)
    try:
        wait_for(lambda: len(ended) >= 3, TIMEOUT_S)
        said = len(ended)
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(30)
    finally:
        cli.kill()
    reader.join(10)
    kept = load(out).cells
    assert len(kept) >= said and kept[-1].status == "ok", (said, len(kept))
    resumed = run_cli("run", "--resume", str(out), timeout=TIMEOUT_S)
    assert resumed.returncode == 0, resumed.stderr
    cells = load(out).cells
    keys = [(c.workload, c.trial) for c in cells]
    assert len(cells) == 6 and len(set(keys)) == 6 and all(c.status == "ok" for c in cells), keys
