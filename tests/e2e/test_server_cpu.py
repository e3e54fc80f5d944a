"""Server CPU to the nanosecond: the process clock against the kernel's per-thread schedstat,
and a real server that answered never costing 0."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.process import cpu_clock

# Three threads burn CPU and end, then the process sleeps: what it spent stays put.
THREADS_THEN_SLEEP = """
import sys, threading, time
for _ in range(3):
    t = threading.Thread(target=lambda: sum(range(2 * 10**6)))
    t.start()
    t.join()
print("done", flush=True)
time.sleep(60)
"""


def schedstat_ns(pid: int) -> dict[int, int]:
    """Each live thread's first schedstat field (ns on a CPU), read as the kernel writes it; a thread that
    ends between the listing and its read is not live (its read fails: under load a joined thread's task
    lingers, and the test's wait for it to go read one as it went, failing 1 of 2 runs)."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found[int(task.name)] = int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


@pytest.fixture
def sleeper():
    proc = subprocess.Popen([sys.executable, "-c", THREADS_THEN_SLEEP], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "done\n"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_process_clock_counts_the_threads_that_ended(sleeper):
    deadline = time.monotonic() + 10
    while list(schedstat_ns(sleeper.pid)) != [sleeper.pid] and time.monotonic() < deadline:
        time.sleep(0.01)  # a joined thread's task may linger a moment after Python's join returns
    live = schedstat_ns(sleeper.pid)
    total = cpu_clock.process_cpu_ns(sleeper.pid)
    assert list(live) == [sleeper.pid]  # the burning threads are gone: schedstat has only the main one
    assert total is not None and total > live[sleeper.pid] > 0  # the clock still has what they spent


def test_process_clock_of_a_process_gone_is_none():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert cpu_clock.process_cpu_ns(proc.pid) is None


@pytest.mark.parametrize("contender", ["tcp-raw", "tcp-raw-go"])
def test_a_server_that_answered_never_cost_zero(tmp_path, contender):
    """The ticks moved in 20 us steps over 500 calls and read 0 for a fast server; the clock does not."""
    config = RunConfig(contenders=[contender], workloads=["usp.int32"], calls=300, warmup_s=0,
                       out=tmp_path / "r.json")
    [cell] = Arena(config, plans(config)).run().cells
    if cell.status == "unavailable":
        pytest.skip(cell.reason or "worker unavailable")
    assert cell.status == "ok" and cell.calls == 300, cell.reason
    assert cell.server_cpu_s is not None and cell.server_cpu_s > 0
    assert cell.server_cpu_us_per_call is not None and cell.server_cpu_us_per_call > 0


GRANDPARENT = """
import subprocess, sys, time
burn = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass\\n"
child = ("import subprocess, sys, time\\n"
         f"subprocess.run([sys.executable, '-c', {burn!r}])\\n"  # the grandchild burns 0.3 s and is reaped here
         "open(sys.argv[1], 'w').close()\\n"
         "time.sleep(60)\\n")
subprocess.Popen([sys.executable, "-c", child, sys.argv[1]])
time.sleep(60)
"""


def test_a_servers_usage_never_drops_when_a_grandchild_ends(tmp_path):
    """A server whose worker runs a process of its own (a grandchild) and reaps it: the grandchild's
    CPU moves into the worker's reaped-children times, and stays in the server's usage."""
    import psutil

    from rpcarena.process.server_process import process_usage
    done = tmp_path / "reaped"
    root = subprocess.Popen([sys.executable, "-c", GRANDPARENT, str(done)])
    try:
        process = psutil.Process(root.pid)
        peak, deadline = 0.0, time.monotonic() + 30
        while not done.exists() and time.monotonic() < deadline:
            usage = process_usage(process)
            peak = max(peak, usage.cpu_user_s + usage.cpu_sys_s)
            time.sleep(0.02)
        assert done.exists(), "the grandchild did not end in 30 s"
        after = process_usage(process)
        assert peak >= 0.1  # the burn was seen while it ran
        assert after.cpu_user_s + after.cpu_sys_s >= peak - 0.02 and after.cpu_s >= 0.3, (peak, after)
    finally:
        for p in psutil.Process(root.pid).children(recursive=True):
            p.kill()
        root.kill()
        root.wait()
