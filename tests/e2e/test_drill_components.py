"""The drill's dead and frozen components: a helper every call passes through (the delay line, the
run's Redis, a cell's HAProxy, a netns cluster's delay line) killed or SIGSTOPped mid-cell fails the
cell naming it, the run stops there as the README says, and nothing is left (issue 42, "A dead or
frozen component is noticed in seconds"). On main, a SIGSTOPped delay line gave "ok, 0 calls" and
exit 0; HAProxy's death and a netns cluster's lost link let the run go on.

Each cell is asked to run for 300 s: only noticing the fault ends it within the drill's bound.
"""

from __future__ import annotations

import signal

import pytest

from rpcarena.results import load
from tests.conftest import popen_cli, wait_for
from tests.e2e.test_fault_drill import (
    DRILL_TIMEOUT_S,
    Watch,
    _measuring,
    _need_root,
    _nothing_left,
    _one_line,
    _processes,
)
from tests.helpers.processes import connected

LONG = ("--duration", "300s", "--warmup", "0")
HELPERS = {
    # what the run needs, its contender, a marker of the helper's command line, its name in the error
    "delay-line": (("--link", "rtt=1ms"), "tcp-raw", "-queues", "the delay line"),
    "redis": (("--workload", "predictions.get", "--clients", "1,2"), "grpc-py", "redis-server", "the Redis"),
    "haproxy": (("--via", "haproxy"), "rest-fastapi", "haproxy", "haproxy"),
    "cluster-delay-line": (("--cluster", "netns:rtt=1ms,clients=1"), "tcp-raw", "-queues", "the delay line"),
}
TWO = ("--workload", "usp.void,usp.int32")  # a second cell, which the stop leaves unmeasured


@pytest.mark.parametrize("helper,sig", [("delay-line", signal.SIGSTOP), ("redis", signal.SIGSTOP),
                                        ("haproxy", signal.SIGSTOP), ("haproxy", signal.SIGKILL),
                                        ("cluster-delay-line", signal.SIGKILL)],
                         ids=["delay-line-stopped", "redis-stopped", "haproxy-stopped", "haproxy-killed",
                              "cluster-delay-line-killed"])
def test_a_dead_or_stopped_helper_fails_its_cell_and_stops_the_run(helper, sig, tmp_path):
    _need_root()
    needs, contender, marker, name = HELPERS[helper]
    needs = needs if "--workload" in needs else (*needs, *TWO)
    out = tmp_path / "r.json"
    cli = popen_cli("run", *needs, "--contender", contender, *LONG, "--out", str(out))
    watch = Watch(cli)
    try:
        wait_for(lambda: _processes(cli, "rpcarena.worker.drive"), 180)
        # drivers start before the server and its helpers are up: the helper once a driver reached
        # the server through it (the delay line and Redis hold no TCP connection of their own)
        wait_for(lambda: _measuring(cli, contender), 180)
        found = sorted(_processes(cli, marker), key=lambda p: not connected(p.pid))[0]  # HAProxy's worker
        found.send_signal(sig)
    finally:
        code, stderr = watch.finish(DRILL_TIMEOUT_S)
    said = _one_line(stderr)
    how = "stopped" if sig == signal.SIGSTOP else "died"
    assert code == 1 and name in said and how in said and "1 cell(s) not measured" in said, said
    (cell,) = load(out).cells
    assert cell.status == "failed" and name in cell.reason, cell.reason
    _nothing_left(cli.pid, watch)
