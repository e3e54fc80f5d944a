"""The arena's pipeline without servers: plans -> context -> each plan's runner -> the results document.

The fake runner (tests/conftest.py) stands in for real measurement, the way hyperfine
tests its scheduler with a mock executor; what is asserted are counts, order, statuses
and what the document keeps, never a duration.
"""

from __future__ import annotations

import argparse

import pytest

import rpcarena
from rpcarena import cli, report
from rpcarena.analysis import slo
from rpcarena.config import RunConfig
from rpcarena.orchestration import debug_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.findmax import find_max
from tests.conftest import FakeCells, fake_context, fake_plans


def _config(tmp_path, **changes) -> RunConfig:
    values = dict(contenders=["grpc-py", "rest-fastapi", "tcp-raw"], workloads=["usp.int32", "usp.void"],
                  calls=10, warmup_s=0, out=tmp_path / "r.json")
    return RunConfig(**{**values, **changes})


def test_every_plan_is_measured_by_its_runner_in_order_and_saved_as_it_goes(tmp_path):
    config, runner, seen = _config(tmp_path), FakeCells(), []
    results = Arena(config, fake_plans(config, runner), lambda i, n, p, c: seen.append((i, n, c is None)),
                    context=fake_context).run()
    assert [f"{c.contender}<-{c.client} {c.workload} x1" for c in results.cells] == runner.measured
    # 3 contenders x 2 workloads, and tcp-raw, the Python clients' floor, once more in each workload
    assert len(runner.measured) == 8 and all(c.status == "ok" and c.calls for c in results.cells)
    assert seen == [(i, 8, starting) for i in range(8) for starting in (True, False)]
    again = rpcarena.load(config.out)
    assert again.finished and len(again.cells) == 8 and again.failures == []


def test_repeat_makes_trials_of_every_cell(tmp_path):
    config = _config(tmp_path, contenders=["grpc-py"], workloads=["usp.int32"], clients=[1, 4], repeat=3)
    cells = Arena(config, fake_plans(config), context=fake_context).run().cells
    assert sorted((c.clients, c.trial) for c in cells) == [(n, t) for n in (1, 4) for t in range(3)]


def test_a_runner_skip_and_failure_become_statuses_and_failures(tmp_path):
    config = _config(tmp_path, workloads=["usp.int32"])
    runner = FakeCells(fail=("rest-fastapi",), skip=("tcp-raw",))
    results = Arena(config, fake_plans(config, runner), context=fake_context).run()
    status = {c.contender: (c.status, c.reason) for c in results.cells}
    assert status["grpc-py"] == ("ok", None)
    assert status["rest-fastapi"] == ("failed", "rest-fastapi server died (fake)")
    assert status["tcp-raw"] == ("unsupported", "skipped by the fake runner")
    assert results.failures == ["rest-fastapi<-py usp.int32 x1: rest-fastapi server died (fake)"]
    assert rpcarena.load(config.out).failures == results.failures


def test_fail_fast_stops_at_the_first_failed_cell(tmp_path):
    config = _config(tmp_path, workloads=["usp.int32"], fail_fast=True)
    cells = Arena(config, fake_plans(config, FakeCells(fail=("grpc-py",))), context=fake_context).run().cells
    assert [c.status for c in cells] == ["failed"]


def test_find_max_probes_each_plan_and_records_the_answer(tmp_path):
    config = _config(tmp_path, contenders=["grpc-py"], workloads=["usp.int32"])
    results = find_max(config, slo.parse("p99<1s"), fake_plans(config), steps=3)
    (answer,) = results.find_max
    assert answer["contender"] == "grpc-py" and len(answer["probes"]) == 3
    assert all(p["meets"] for p in answer["probes"]) and answer["max_rate_per_s"] > 0
    assert len(results.cells) == 1 + 3 and rpcarena.load(config.out).find_max == results.find_max


def test_the_report_of_a_fake_run_is_written(tmp_path):
    config = _config(tmp_path, repeat=2)
    results = Arena(config, fake_plans(config), context=fake_context).run()
    page = report.write_html([report.Source("run", results)], tmp_path / "r.html")
    text = page.read_text()
    assert "grpc-py" in text and "usp.int32" in text and ("<svg" in text or "<img" in text)


def test_the_run_notes_are_typed_keys_and_version_1_still_loads(tmp_path):
    config = _config(tmp_path, workloads=["usp.int32"])
    Arena(config, fake_plans(config), context=fake_context).run()
    doc = rpcarena.load(config.out)
    assert doc.placement == {"policy": "none", "server_cpus": None, "client_cpus": None}
    assert doc.wire_unavailable == debug_cells.DEBUG and doc.suite is None
    old = rpcarena.load("tests/fixtures/results_usp_int32_small.json")  # version 1: notes under "extra"
    assert old.placement == {"policy": "split", "server_cpus": [0], "client_cpus": [1]}


@pytest.mark.parametrize("argv", [["run", "--clie", "go"], ["target", "--http", "http://x", "--repe", "2"]])
def test_options_are_never_taken_by_their_prefix(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.parser().parse_args(argv)
    assert exit_.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


def test_the_arena_default_warmup_applies_only_without_options():
    from rpcarena.commands import run

    def config(*argv: str) -> RunConfig:
        args = cli.parser().parse_args(["run", *argv])
        assert isinstance(args, argparse.Namespace)
        return run.config_from(args)

    assert config().warmup_s == 0.5
    assert config("--workload", "usp.void").warmup_s == 1.0
    assert config("--warmup", "1s").warmup_s == 1.0  # said out loud: kept, even where the default is 0.5 s
    # the default arena judges every ratio over 3 trials; a run of chosen contenders repeats as asked
    assert (config().repeat, config("--workload", "usp.void").repeat, config("--repeat", "5").repeat) == (3, 1, 5)
