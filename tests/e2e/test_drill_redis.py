"""The drill's open Redis: another local user (uid 65534) runs redis-cli flushall against the run's
Redis through every address it has, with every secret another user can read (the servers' command
lines), and gets nowhere; the run's answers stay right (issue 42, "Tool-started Redis closed to other
users"). On main, `redis-cli -p PORT flushall` wiped the data set mid-run: 58% wrong answers, exit 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from urllib.parse import urlsplit

import psutil
import pytest

from rpcarena.results import load
from tests.conftest import popen_cli, wait_for
from tests.e2e.test_fault_drill import Watch, _processes

NOBODY = 65534


def _as_nobody(*argv: str) -> str:
    """What redis-cli says when another user runs it (its output, or why it could not)."""
    done = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv],
                          capture_output=True, text=True, timeout=30, check=False, cwd="/")
    return (done.stdout + done.stderr).strip()


def _attacks(redis: psutil.Process, urls: set[str]) -> list[list[str]]:
    """redis-cli flushall through each TCP port the Redis listens on and each socket a server was
    told, with and without the password that command line shows."""
    passwords = {urlsplit(u).password for u in urls} - {None}
    auth = [[]] + [["-a", p, "--no-auth-warning"] for p in passwords]
    tcp = [["-h", "127.0.0.1", "-p", str(c.laddr.port)] for c in redis.net_connections("tcp")
           if c.status == psutil.CONN_LISTEN]
    sockets = [["-s", urlsplit(u).path] for u in urls if u.startswith("unix:")]
    return [["redis-cli", *where, *secret, "flushall"] for where in tcp + sockets for secret in auth]


def _told(cli) -> set[str]:
    """The --redis URL each server was given (any user reads a process's command line)."""
    told = set()
    for server in _processes(cli, "--redis"):
        argv = server.cmdline()
        told.add(argv[argv.index("--redis") + 1])
    return told


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="acting as another user needs root")
def test_another_user_cannot_flush_the_runs_redis(tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("redis-server not installed")
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--workload", "predictions.get", "--contender", "grpc-py", "-z", "6s", "--warmup", "0",
                    "--out", str(out))
    watch = Watch(cli)
    try:
        wait_for(lambda: _processes(cli, "rpcarena.worker.drive"), 120)
        (redis,) = _processes(cli, "redis-server")
        attacks = _attacks(redis, _told(cli))
        assert attacks, "no address of the Redis found"
        said = {" ".join(argv): _as_nobody(*argv) for argv in attacks}
        assert not [argv for argv, answer in said.items() if answer == "OK"], said
    finally:
        code, stderr = watch.finish(120)
    assert code == 0, stderr
    (cell,) = load(out).cells
    assert cell.status == "ok" and cell.calls > 0 and cell.error_count == 0, (cell.errors, cell.error_examples)
