"""Other load measured over the phase itself: a busy process pinned beside the server during one
cell's phase raises the other-load warning for that cell only, read from the kernel's counters.

Real processes: a run of two contenders, and `yes` on the server's CPU while grpc-py's server is
up. Every other cell, before and after it, must be quiet: the run's own processes (the orchestrator,
its imports, the drivers) are not other load. On a machine that other work keeps busy, the quiet
cells are (rightly) warned too, and the test says so and skips its quiet half.
"""

from __future__ import annotations

import os
import subprocess
import time

import psutil
import pytest

import rpcarena
from rpcarena.analysis import stability
from rpcarena.process import contention
from rpcarena.report import export
from tests.conftest import popen_cli, server_of, wait_for

pytestmark = pytest.mark.serial  # it tells the run's own load from other load, which other tests would be


def _yes(outside: bool) -> tuple[subprocess.Popen, int]:
    """`yes`, started by this process, or by a shell that exits at once so that init adopts it."""
    argv = ["sh", "-c", "yes >/dev/null & echo $!"] if outside else ["yes"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE if outside else subprocess.DEVNULL)
    if not (outside and proc.stdout):
        return proc, proc.pid
    pid = int(proc.stdout.readline())
    proc.wait()
    return proc, pid


@pytest.mark.parametrize("outside, as_server", [(False, False), (True, False), (True, True)])
def test_a_reading_counts_a_process_outside_the_run_and_not_the_run_itself(outside, as_server):
    """`yes` started by this process (the orchestrator) is the run's own; the same `yes` started
    outside it is another process, its CPU time counted, unless it is the cell's server (a target's
    --server-pid, which the run did not start)."""
    before = contention.read(os.getpid())
    proc, pid = _yes(outside)
    try:
        time.sleep(0.3)
        ended = contention.read(pid if as_server else os.getpid())
    finally:
        os.kill(pid, 9)
        proc.wait()
    phase = before.until(ended)
    assert set(phase) == {"phase_s", "server_waited_s", "others_cpu_s"} and phase["others_cpu_s"] >= 0
    counted = {key[0] for key in ended.others_ticks}
    assert (pid in counted) == (outside and not as_server) and os.getpid() not in counted


def test_short_lived_processes_of_another_are_counted_through_their_parent():
    """A loop outside the run (adopted by init) that starts a short `yes` after another: none of
    them lives from one reading to the next, yet their CPU time is counted, in the loop's reaped
    children's time."""
    loop = subprocess.run(["sh", "-c", "(while :; do timeout 0.05 yes >/dev/null; done) >/dev/null 2>&1 & echo $!"],
                          capture_output=True, text=True, check=True)
    pid = int(loop.stdout)
    try:
        before = contention.read(os.getpid())
        time.sleep(0.5)
        ended = contention.read(os.getpid())
    finally:
        os.kill(pid, 9)
    grew = [t - before.others_ticks.get(key, 0) for key, t in ended.others_ticks.items() if key[0] == pid]
    assert grew and grew[0] > 0 and before.until(ended)["others_cpu_s"] > 0


def _busy_beside(server: psutil.Process) -> subprocess.Popen:
    cpu = min(server.cpu_affinity())
    return subprocess.Popen(["taskset", "-c", str(cpu), "yes"], stdout=subprocess.DEVNULL)


def _machine_quiet(seconds: int = 20) -> bool:
    """Whether the machine ran less than stability.OTHER_CPUS of other work over a whole second,
    waiting up to `seconds` for one (what an earlier test started may still be winding down)."""
    for _ in range(seconds):
        before = contention.read(None)
        time.sleep(1.0)
        phase = before.until(contention.read(None))
        if phase["others_cpu_s"] / phase["phase_s"] < stability.OTHER_CPUS / 4:
            return True
    return False


def test_a_busy_process_beside_the_server_during_one_phase_is_other_load_for_that_cell_only(tmp_path):
    out = tmp_path / "r.json"
    quiet = _machine_quiet()
    cli = popen_cli("run", "--contender", "tcp-raw,grpc-py", "--workload", "usp.int32", "-n", "3000",
                    "--warmup", "0.3s", "--pin", "split", "-o", str(out))
    busy = None
    try:
        server = wait_for(lambda: server_of(psutil.Process(cli.pid), "grpc-py"), timeout_s=120)
        busy = _busy_beside(server)
        wait_for(lambda: not server.is_running() or server.status() == psutil.STATUS_ZOMBIE, timeout_s=120)
        busy.kill()
        busy.wait()
        assert cli.wait(timeout=120) == 0, cli.stderr.read() if cli.stderr else ""
    finally:
        for proc in (busy, cli):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    doc = rpcarena.load(out)
    kinds = {(c.contender, c.trial): [w.kind for w in export.cell_warnings(c, 2)] for c in doc.cells}
    assert all(c.contention.get("phase_s") for c in doc.cells)
    assert "other-load" in kinds[("grpc-py", 0)], kinds
    quiet = quiet and _machine_quiet(seconds=1)  # and still quiet after it
    if not quiet:  # other work on the machine takes time from every cell, and each is rightly warned
        pytest.skip(f"the machine ran other work before the run, so its quiet cells are warned too: {kinds}")
    quiet_cells = [found for (name, _), found in kinds.items() if name != "grpc-py"]
    assert quiet_cells and all("other-load" not in found for found in quiet_cells), kinds
