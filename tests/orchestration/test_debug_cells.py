"""`--debug-mode`: the whole command over made-up cells, nothing started (the unit tier's guard fails
this module at the first process it would start)."""

from __future__ import annotations

import json

import rpcarena
from rpcarena.orchestration import debug_cells
from tests.helpers.cli import cli


def test_run_in_debug_mode_writes_every_planned_cell_says_so_and_exits_0(tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--contender", "tcp-raw,grpc-py,rest-fastapi", "--workload", "usp.int32,usp.void", "-n", "50",
               "--repeat", "2", "--debug-mode", "-o", str(out))
    assert done.returncode == 0, done.stderr
    doc = rpcarena.load(out)
    assert len(doc.cells) == 3 * 2 * 2 and {c.status for c in doc.cells} == {"ok"}
    assert {(c.calls, c.client_tool["name"]) for c in doc.cells} == {(50, "debug-mode")}
    assert doc.wire_unavailable == debug_cells.DEBUG
    assert "usp.int32, 1 client" in done.stdout  # the answer, ranked as a real run's
    p50 = {c.contender: c.latency["p50_us"] for c in doc.cells if c.trial == 0 and c.workload == "usp.int32"}
    assert len(set(p50.values())) == 3  # each contender its own latency: a ranking has an order


def test_a_duration_run_and_the_json_on_stdout_in_debug_mode(tmp_path):
    done = cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "-z", "30s", "--debug-mode", "-o", "-",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (cell,) = json.loads(done.stdout)["cells"]
    assert cell["calls"] == debug_cells.CALLS and not list(tmp_path.rglob("*.json"))


def test_a_suite_in_debug_mode_runs_every_part_without_its_redis_or_link(tmp_path):
    out = tmp_path / "s.json"
    done = cli("suite", "predictions", "--quick", "--repeat", "3", "--debug-mode", "-o", str(out))
    assert done.returncode == 0, done.stderr
    doc = rpcarena.load(out)
    assert doc.cells and {c.status for c in doc.cells} <= {"ok", "unsupported", "unavailable"}
    assert (tmp_path / "s.html").exists() and "part 1 of" in done.stderr
