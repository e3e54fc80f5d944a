"""The drill's leftovers: after kill -9 of delaynet, or of a netns cluster's orchestrator, nothing the
run made is left 10 s later, without waiting for the next run's sweep (issue 42, "Sweeps that find
everything the tool makes"); and every name the tool makes is one the sweeper reads back.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from rpcarena.process import leftovers
from tests.conftest import popen_cli, wait_for
from tests.e2e.test_fault_drill import Watch, _need_root, _processes, census

GONE_WITHIN_S = 10
LONG = ("--duration", "300s", "--warmup", "0")


@pytest.mark.parametrize("kind,parts", [("folder", ("redis", "")), ("netns", ("0", "server")), ("table", (8080,)),
                                        ("interface", ("c", 9999))])
def test_every_name_made_is_read_back_by_the_sweeper(kind, parts):
    for pid in (os.getpid(), 4194304):  # the largest pid Linux gives
        assert leftovers.owner(leftovers.name(kind, *parts, pid=pid)) == pid
    assert leftovers.owner("rpcarena-4194304-12-client") == 4194304  # delaynet's namespaces (Go's Prefix)


def _nothing_left_within(pids: list[int], watch: Watch) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    left = [line for pid in pids for line in census(pid, watch)]
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = [line for pid in pids for line in census(pid, watch)]
    assert left == [], left


def _delaynet(cli) -> int:
    """delaynet's pid: `delayline-worker up -delayline ...` (its namespaces carry this pid)."""
    (found,) = _processes(cli, " up -delayline ")
    return found.pid


@pytest.fixture
def started():
    """The CLI processes a test starts, ended (SIGTERM: they clean up) if the test failed before."""
    clis = []
    yield clis.append
    for cli in clis:
        if cli.poll() is None:
            cli.terminate()
            cli.wait(60)


def test_kill_9_of_delaynet_fails_the_cell_and_leaves_nothing(tmp_path, started):
    _need_root()
    cli = popen_cli("run", "--link", "rtt=1ms", "--contender", "tcp-raw", "--workload", "usp.void,usp.int32", *LONG,
                    "--out", str(tmp_path / "r.json"))
    started(cli)
    watch = Watch(cli)
    wait_for(lambda: _processes(cli, "rpcarena.worker.drive"), 120)
    delaynet = _delaynet(cli)
    os.kill(delaynet, signal.SIGKILL)
    code, stderr = watch.finish(120)
    assert code == 1 and "delaynet died" in stderr, stderr
    _nothing_left_within([cli.pid, delaynet], watch)


def test_kill_9_of_a_netns_cluster_orchestrator_leaves_nothing(tmp_path, started):
    _need_root()
    pytest.importorskip("distributed")
    cli = popen_cli("run", "--cluster", "netns:rtt=1ms,clients=1", "--contender", "tcp-raw", "--workload", "usp.void",
                    *LONG, "--out", str(tmp_path / "r.json"))
    started(cli)
    watch = Watch(cli)
    wait_for(lambda: _processes(cli, "rpcarena.worker.drive"), 180)
    delaynet = _delaynet(cli)
    assert any(f" rpa{cli.pid}c" in line for line in census(cli.pid)), "the drill needs the control veth"
    os.kill(cli.pid, signal.SIGKILL)
    watch.finish(30)
    _nothing_left_within([cli.pid, delaynet], watch)
