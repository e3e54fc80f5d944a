"""The fault drill: a server, a driver or the orchestrator killed, stopped or signalled mid-run.

After each fault: the results file loads, the affected cell has the right status, the exit code
says what happened, and a census of the run's pid (its processes, nft tables, network namespaces,
interfaces and /tmp/rpcarena-* folders) finds nothing left. Small cells, every wait bounded;
counts and statuses are asserted, never a duration.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest

from rpcarena.results import load
from tests.conftest import cells_in, popen_cli, run_cli, wait_for
from tests.helpers.processes import server_of

GRPC_CELL = ("--contender", "grpc-py", "--warmup", "0")
DRILL_TIMEOUT_S = 180


def _owned_by(name: str, pid: int) -> bool:
    """rpcarena's names carry the creating pid: rpcarena_PID_PORT, rpcarena-PID-..., rpcarenaPIDx0, rpaPIDh0."""
    match = re.match(r"(?:rpcarena|rpa)[-_]?(\d+)(?!\d)", name)
    return match is not None and int(match.group(1)) == pid


def _lines(*argv: str) -> list[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return done.stdout.splitlines()


def _marked(proc: psutil.Process, pid: int) -> bool:
    try:
        return proc.environ().get("RPCARENA_OWNER") == str(pid)
    except (psutil.Error, OSError):
        return False


class Watch:
    """Every process the CLI started, seen by polling its descendants while it runs."""

    def __init__(self, cli: subprocess.Popen) -> None:
        self.cli = cli
        self.seen: dict[int, float] = {}
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        deadline = time.monotonic() + DRILL_TIMEOUT_S
        while self.cli.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(psutil.Error):
                for child in psutil.Process(self.cli.pid).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.seen.setdefault(child.pid, child.create_time())
            time.sleep(0.05)

    def alive(self) -> list[str]:
        left = []
        for pid, created in self.seen.items():
            try:
                proc = psutil.Process(pid)
                if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                    left.append(f"process {pid} {' '.join(proc.cmdline())[:80]}")
            except psutil.Error:
                continue
        return left

    def finish(self, timeout: float = DRILL_TIMEOUT_S) -> tuple[int, str]:
        _, stderr = self.cli.communicate(timeout=timeout)
        self._thread.join(5)
        return self.cli.returncode, stderr


def census(pid: int, watch: Watch | None = None) -> list[str]:
    """What is left in the system of the rpcarena process `pid`."""
    left = watch.alive() if watch else []
    left += [f"process {p.pid} marked" for p in psutil.process_iter() if p.pid != pid and _marked(p, pid)]
    left += [f"nft {line}" for line in _lines("nft", "list", "tables") if _owned_by(line.split()[-1], pid)]
    left += [f"netns {line}" for line in _lines("ip", "netns", "list") if line and _owned_by(line.split()[0], pid)]
    left += [f"link {line}" for line in _lines("ip", "-o", "link")
             if len(line.split()) > 1 and _owned_by(line.split()[1].split("@")[0], pid)]
    left += [f"folder {p}" for p in Path(tempfile.gettempdir()).glob("rpcarena-*") if _owned_by(p.name, pid)]
    return left


def _nothing_left(pid: int, watch: Watch | None = None) -> None:
    """Processes killed with their parent take a moment to go: wait (bounded), then name what is left."""
    deadline = time.monotonic() + 15
    while census(pid, watch) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert census(pid, watch) == []


def _need_root() -> None:
    if os.geteuid() != 0 and os.environ.get("CI") != "true":
        pytest.skip("the drill counts nft tables and namespaces: needs root")


def _processes(cli: subprocess.Popen, marker: str) -> list[psutil.Process]:
    found = []
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(cli.pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if marker in " ".join(child.cmdline()):
                    found.append(child)
    return found


def _measuring(cli: subprocess.Popen, contender: str) -> psutil.Process | None:
    """The contender's server under `cli` once a driver has connected to it, else None."""
    return server_of(psutil.Process(cli.pid), contender)


PROGRESS = re.compile(r"^(part \d+ of \d+: )?(cell \d+/\d+ |\d+ of \d+ cells in )")  # report/progress.py's lines


def _one_line(stderr: str) -> str:
    """The one line that says what went wrong (the progress lines of the cells beside it are not it)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not PROGRESS.match(line)]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture(autouse=True)
def _root():
    _need_root()


def test_kill_9_of_the_server_fails_its_cell_with_the_exit_status(tmp_path):
    # The case: a short cell whose driver finishes between two liveness checks.
    out = tmp_path / "r.json"
    cli = popen_cli("run", *GRPC_CELL, "--workload", "usp.void", "--calls", "3000", "--out", str(out))
    watch = Watch(cli)
    server = wait_for(lambda: _measuring(cli, "grpc-py"), 60)
    time.sleep(0.2)
    server.kill()
    code, stderr = watch.finish()
    assert code == 1, stderr
    assert "server died" in _one_line(stderr)
    (cell,) = load(out).cells
    assert cell.status == "failed" and "SIGKILL" in cell.reason, cell.reason
    _nothing_left(cli.pid, watch)


def test_kill_9_of_a_driver_fails_its_cell(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", *GRPC_CELL, "--workload", "usp.void", "--duration", "20s", "--out", str(out))
    watch = Watch(cli)
    wait_for(lambda: _measuring(cli, "grpc-py"), 60)
    _processes(cli, "rpcarena.worker.drive")[0].kill()
    code, stderr = watch.finish()
    assert code == 1, stderr
    assert "client driver failed" in _one_line(stderr)
    (cell,) = load(out).cells
    assert cell.status == "failed" and "client driver failed" in cell.reason
    _nothing_left(cli.pid, watch)


def test_sigstop_of_the_server_ends_at_the_cell_timeout(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", *GRPC_CELL, "--workload", "usp.void", "--calls", "1000000", "--timeout", "60s",
                    "--cell-timeout", "3s", "--out", str(out))
    watch = Watch(cli)
    server = wait_for(lambda: _measuring(cli, "grpc-py"), 60)
    server.suspend()
    code, stderr = watch.finish()
    assert code == 1, stderr
    _one_line(stderr)
    (cell,) = load(out).cells
    assert cell.status == "failed" and "timed out" in cell.reason and "stopped" in cell.reason, cell.reason
    _nothing_left(cli.pid, watch)


@pytest.mark.parametrize("sig,code,name", [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM"),
                                           (signal.SIGHUP, 129, "SIGHUP")])
def test_a_signal_saves_says_what_was_kept_and_cleans_up(sig, code, name, tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void,usp.int32", "--duration", "20s",
                    "--warmup", "0", "--out", str(out))
    watch = Watch(cli)
    wait_for(lambda: _measuring(cli, "tcp-raw"), 60)
    time.sleep(0.5)  # the measured phase is on: the server port's nft table exists
    os.kill(cli.pid, sig)
    returncode, stderr = watch.finish()
    assert returncode == code, stderr
    line = _one_line(stderr)
    assert "0 cells kept in" in line and f"rpcarena run --resume {out}" in line, line
    doc = load(out)
    assert doc.interrupted == name and doc.finished is None and doc.cells == []
    _nothing_left(cli.pid, watch)


def test_kill_9_of_the_orchestrator_keeps_the_file_and_the_next_start_sweeps(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void,usp.int32", "--duration", "3s",
                    "--warmup", "0", "--out", str(out))
    watch = Watch(cli)
    wait_for(lambda: cells_in(out) == 1 and _measuring(cli, "tcp-raw"), 120)
    time.sleep(0.3)
    os.kill(cli.pid, signal.SIGKILL)
    watch.finish()
    doc = load(out)
    assert [c.status for c in doc.cells] == ["ok"] and doc.finished is None
    assert any(line.startswith("nft") for line in census(cli.pid)), "the drill needs a table left by kill -9"
    resumed = run_cli("run", "--resume", str(out), "--calls", "20", timeout=DRILL_TIMEOUT_S)
    assert resumed.returncode == 2 and "--calls" in _one_line(resumed.stderr)  # a different configuration
    resumed = run_cli("run", "--resume", str(out), timeout=DRILL_TIMEOUT_S)
    assert resumed.returncode == 0, resumed.stderr
    doc = load(out)
    assert [c.workload for c in doc.cells] == ["usp.void", "usp.int32"] and doc.finished is not None
    _nothing_left(cli.pid, watch)


def test_port_in_use_fails_the_cell_and_leaves_nothing(tmp_path):
    out = tmp_path / "r.json"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "5", "--warmup", "0",
                        "--port", str(busy.getsockname()[1]), "--out", str(out))
        watch = Watch(cli)
        code, stderr = watch.finish()
    assert code == 1 and "cannot bind" in _one_line(stderr)
    (cell,) = load(out).cells
    assert cell.status == "failed"
    _nothing_left(cli.pid, watch)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_start_removes_what_dead_rpcarena_processes_left_and_nothing_else(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    tables = [f"rpcarena_{dead}_1", f"rpcarena_{alive}_1"]
    for table in tables:
        subprocess.run(["nft", "add", "table", "inet", table], check=True, timeout=30)
    netns = f"rpcarena-{dead}-0-server"
    subprocess.run(["ip", "netns", "add", netns], check=True, timeout=30)
    folder = Path(tempfile.mkdtemp(prefix=f"rpcarena-{dead}-redis-"))
    # a process an rpcarena of that pid started (a server's grandchild, say): its environment says so
    env = dict(os.environ, RPCARENA_OWNER=str(dead))
    orphan = subprocess.Popen(["sleep", "120"], env=env, start_new_session=True)
    try:
        done = run_cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "5", "--warmup", "0",
                       "--out", str(tmp_path / "r.json"), timeout=DRILL_TIMEOUT_S)
        assert done.returncode == 0, done.stderr
        wait_for(lambda: orphan.poll() is not None, 10)
        assert census(dead) == [] and not folder.exists()
        assert any(f"rpcarena_{alive}_1" in line for line in _lines("nft", "list", "tables"))  # not a dead one's
    finally:
        orphan.kill()
        orphan.wait()
        for table in tables:
            subprocess.run(["nft", "delete", "table", "inet", table], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=30)
        if folder.exists():
            folder.rmdir()


DRIVER = """\
import json, os, signal, sys
sys.stdin.readline()
print(json.dumps({"event": "warm"}), flush=True)
sys.stdin.readline()
os.kill(int(sys.argv[1]), signal.SIGKILL)  # the server dies as the last calls fail...
print(sys.argv[2], flush=True)  # ...and the driver reports at once, between two liveness checks
"""


class SleepServer:
    """A real process in a server's place, read as `measure` reads any server."""

    port = None

    def __init__(self, log: Path) -> None:
        from rpcarena.process.children import Child

        self.child = Child(["sleep", "60"], None, log)

    @property
    def pid(self) -> int:
        return self.child.pid

    def alive(self) -> bool:
        return self.child.alive()

    def died_message(self) -> str:
        return f"sleep server died ({self.child.ended()})"

    def usage(self):
        from rpcarena.process.server_process import process_usage

        return process_usage(psutil.Process(self.pid))

    def peak_rss_bytes(self) -> None:
        return None

    def state(self) -> None:
        return None


def test_a_server_that_dies_as_the_drive_ends_fails_the_cell(tmp_path):
    from rpcarena.config import RunConfig
    from rpcarena.contract import DriveResult, DriveSpec
    from rpcarena.errors import ServerError
    from rpcarena.orchestration.backing import Backing
    from rpcarena.orchestration.context import RunContext
    from rpcarena.orchestration.measure import measure
    from rpcarena.orchestration.phase import DriverSpec
    from rpcarena.process import placement
    from rpcarena.record import hist

    server = SleepServer(tmp_path / "server.log")
    result = DriveResult(calls=1160, errors={"connection": 1840}, wall_s=0.5, cpu_user_s=0.1, cpu_sys_s=0.1,
                         histogram=hist.encode(hist.new()), samples=[], tool={})
    spec = DriveSpec(contender="sleep", target="127.0.0.1:9", method="Void", requests=[{}], calls=3000, sync=True)
    driver = DriverSpec([sys.executable, "-c", DRIVER, str(server.pid), result.to_line()], spec)
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], out=tmp_path / "r.json")
    try:
        with Backing([], {}, config.host) as backing:
            context = RunContext(config, placement.plan("none"), tmp_path, backing, None, "not counted here")
            with pytest.raises(ServerError, match="SIGKILL"):
                measure(server, [driver], context, tmp_path)
    finally:
        server.child.stop()


# --- helpers that die, signals that come in bursts or early ---------------------------------------

LONG = ("--duration", "300s", "--warmup", "0")  # past the drill's bound: only a failure at once ends it in time


HELPERS = [
    # (what the run needs, its contender, a marker of the helper's command line, what the error says)
    (("--link", "rtt=1ms", "--workload", "usp.void,usp.int32"), "tcp-raw", "-queues", "the delay line"),
    (("--workload", "predictions.get", "--clients", "1,2"), "grpc-py", "redis-server", "the Redis died"),
]


@pytest.mark.parametrize("needs,contender,marker,said_name", HELPERS, ids=["delay-line", "redis"])
def test_kill_9_of_a_helper_fails_the_cell_at_once_and_stops_the_run(needs, contender, marker, said_name, tmp_path):
    """The delay line (`delayline-...-line -link ... -queues 0,1`) or the run's Redis: killed mid-cell,
    the cell fails naming it, the run stops (no later cell could be measured), nothing is left."""
    out = tmp_path / "r.json"
    cli = popen_cli("run", *needs, "--contender", contender, *LONG, "--out", str(out))
    watch = Watch(cli)
    wait_for(lambda: _measuring(cli, contender), 120)
    (helper,) = _processes(cli, marker)
    helper.kill()
    code, stderr = watch.finish()
    assert code == 1, stderr
    said = _one_line(stderr)
    assert said_name in said and "died" in said and "1 cell(s) not measured" in said, said
    (cell,) = load(out).cells
    assert cell.status == "failed" and said_name in cell.reason, cell.reason
    _nothing_left(cli.pid, watch)  # the namespaces too


def _burst(cli: subprocess.Popen) -> None:
    """Ctrl-C, Ctrl-C, SIGTERM within a tenth of a second, as an impatient user or a supervisor sends them."""
    for sig in (signal.SIGINT, signal.SIGINT, signal.SIGTERM):
        if cli.poll() is not None:
            return  # it already ended by the first one (while loading it can, within 40 ms)
        with contextlib.suppress(ProcessLookupError):  # ended between poll and kill
            os.kill(cli.pid, sig)
        time.sleep(0.04)


def _started(cli: subprocess.Popen, marker: str):
    return lambda: _processes(cli, marker) or None


@pytest.mark.parametrize("moment", ["loading", "measuring"])
def test_two_ctrl_c_and_a_sigterm_exit_130_by_the_first(moment, tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void", *LONG, "--out", str(out))
    watch = Watch(cli)
    if moment == "loading":
        time.sleep(0.3)  # Python is still loading the command's modules
    else:
        wait_for(lambda: _measuring(cli, "tcp-raw"), 120)
    _burst(cli)
    code, stderr = watch.finish()
    assert code == 130, (code, stderr)  # an exit code, not a death by the signal (-2, -15)
    assert "interrupted by Ctrl-C" in _one_line(stderr)
    _nothing_left(cli.pid, watch)


@pytest.mark.parametrize("start,marker", [(("--cluster", "local:2"), "multiprocessing"),
                                          (("--link", "rtt=1ms"), "delayline")], ids=["cluster", "link"])
def test_sigterm_while_a_cluster_or_a_link_starts_is_one_line(start, marker, tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", *start, "--contender", "tcp-raw", "--workload", "usp.void", *LONG, "--out", str(out))
    watch = Watch(cli)
    wait_for(_started(cli, marker), 120)
    os.kill(cli.pid, signal.SIGTERM)
    code, stderr = watch.finish()
    assert code == 143, (code, stderr)
    assert "interrupted by SIGTERM" in _one_line(stderr)
    _nothing_left(cli.pid, watch)
