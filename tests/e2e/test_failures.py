"""Bad input and failures: one line that says what to do, non-zero exit, cells kept, nothing left behind."""

from __future__ import annotations

import os
import signal
import socket
import time

import psutil
import pytest

from rpcarena.results import load
from tests.conftest import cells_in, cli, descendants, popen_cli, server_of, wait_for
from tests.helpers.processes import gone


def _one_line_error(done, needle: str, code: int) -> None:
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert needle in lines[0] and "Traceback" not in done.stderr


@pytest.mark.parametrize("args,needle", [
    (["--contender", "grpc-nope"], "rpcarena list"),
    (["--workload", "usp.nothing"], "rpcarena list"),
    (["--contender", "tcp-raw", "--clients", "0"], "--clients"),
    (["--contender", "tcp-raw", "--clients", "a,b"], "--clients"),
    (["--contender", "tcp-raw", "--duration", "forever"], "--duration"),
    (["--contender", "tcp-raw", "--pin", "diagonal"], "--pin"),
])
def test_bad_input(args, needle, tmp_path):
    done = cli("run", *args, "--debug-mode", "--out", str(tmp_path / "r.json"))  # refused before any cell
    _one_line_error(done, needle, 2)


def test_port_in_use(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        done = cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "5",
                   "--port", str(port), "--out", str(tmp_path / "r.json"))
    finally:
        busy.close()
    assert done.returncode == 1
    assert "cannot bind" in done.stderr and "free port" in done.stderr
    (cell,) = load(tmp_path / "r.json").cells
    assert cell.status == "failed"


def _assert_nothing_left(pids: list[int]) -> None:
    wait_for(lambda: all(gone(pid) for pid in pids), 10)


def test_server_dying_mid_run(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "grpc-py", "--workload", "usp.void,usp.int32", "--duration", "3s",
                    "--warmup", "0", "--out", str(out))
    watched = psutil.Process(cli.pid)
    wait_for(lambda: cells_in(out) == 1)
    server = wait_for(lambda: server_of(watched, "grpc-py"))
    pids = [p.pid for p in descendants(watched)]
    time.sleep(0.5)
    server.kill()
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 1, stderr
    assert "server died" in stderr and "kept in" in stderr
    first, second = load(out).cells
    assert first.status == "ok" and first.calls > 0
    assert second.status == "failed" and "server died" in second.reason
    _assert_nothing_left(pids)


def test_hung_server_counts_timeouts(tmp_path):
    """The server hangs (SIGSTOP) for 0.6 s in every second until the run ends: however late a busy
    machine starts the measured phase, some of its calls wait past the 200 ms timeout."""
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "grpc-py", "--workload", "usp.int32", "--duration", "4s",
                    "--warmup", "0", "--timeout", "200ms", "--max-error-rate", "90%",  # counted, not failing it
                    "--out", str(out))
    server = wait_for(lambda: server_of(psutil.Process(cli.pid), "grpc-py"))
    try:
        while cli.poll() is None and server.is_running():
            server.suspend()
            time.sleep(0.6)
            server.resume()
            time.sleep(0.4)
    except psutil.NoSuchProcess:
        pass  # the cell ended and its server with it
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 0, stderr
    (cell,) = load(out).cells
    assert cell.status == "ok"
    assert cell.errors.get("timeout", 0) >= 1
    assert cell.histogram.get_total_count() == cell.calls  # failed calls are not latency samples


def test_ctrl_c_keeps_what_was_measured(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void,usp.int32", "--duration", "20s",
                    "--warmup", "0", "--out", str(out))
    watched = psutil.Process(cli.pid)
    wait_for(lambda: cells_in(out) == 0 and server_of(watched, "tcp-raw"))
    time.sleep(0.5)
    pids = [p.pid for p in descendants(watched)]
    os.kill(cli.pid, signal.SIGINT)
    _, stderr = cli.communicate(timeout=60)
    assert cli.returncode == 130, stderr
    assert "interrupted" in stderr and str(out) in stderr
    assert load(out).interrupted == "Ctrl-C"
    _assert_nothing_left(pids)


def test_a_last_line_without_a_newline_is_read(tmp_path):
    from rpcarena.process.children import Child

    child = Child(["printf", '{"event": "warm"}\n{"calls": 1}'], None, tmp_path / "child.log")
    try:
        assert child.read_json(5) == {"event": "warm"}
        assert child.read_json(5) == {"calls": 1}
        assert child.read_json(0.2) is None
        child.proc.wait(10)  # the end of its output comes a moment before its exit
    finally:
        child.stop()
    assert child.ended() == "exit code 0"
