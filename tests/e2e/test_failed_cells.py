"""A failed cell is failed (issue 38): on `run`, `target` and `suite`, a mechanism that fails every
call, one that fails half, and one that completes no call are each `failed`, shown with their errors
in the answer and in `show`, counted on the final line, and the command exits as the README's table
says: 3 for failed calls past --max-error-rate, 1 for a cell that measured nothing, 1 when both.

Real servers where the process is the subject (a handler slower than the --timeout, an HTTP server
answering wrong in turn or always); the fake runner for what only the arena and the commands decide."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rich.console import Console

from rpcarena.orchestration.arena import Arena
from rpcarena.report.progress import CellProgress
from rpcarena.results import load
from tests.commands.test_input_checks import call
from tests.conftest import FIXTURE, ROOT, FakeCells, fake_context, fake_plans, run_cli
from tests.e2e.test_target_defects import CLIENTS, wrong  # noqa: F401 (the fixture)

FAST = ("--warmup", "0.1s")
ORDERS = ("--proto", str(ROOT / "examples/orders/orders.proto"), "--method", "orders.Orders/Place",
          "--data-file", str(ROOT / "examples/orders/requests.jsonl"))
# every call of a handler that waits 20 ms times out at 1 ms, however loaded the machine
TIMED_OUT = ("--server-wait", "20ms", "--timeout", "1ms")


def _final(stderr: str) -> str:
    return next(line for line in reversed(stderr.splitlines()) if " cells in " in line)


# --- run: a real server whose every call times out ---------------------------------------------------

def test_run_a_mechanism_that_fails_every_call_is_failed_and_exits_3(tmp_path):
    out = tmp_path / "r.json"
    done = run_cli("run", *ORDERS, *TIMED_OUT, "--contender", "grpc-py", "-n", "20", *FAST, "--out", str(out),
                   timeout=300)
    assert done.returncode == 3, done.stderr
    (cell,) = load(out).cells
    assert (cell.status, cell.calls, cell.errors) == ("failed", 0, {"timeout": 20}), cell.reason
    assert cell.reason.startswith("20 of 20 calls failed (100.0%: timeout 20), above --max-error-rate 0%; e.g. ")
    assert "(1 failed, 20 failed calls)" in _final(done.stderr)
    _shown_failed(done.stdout, "grpc-py", "20 (100.0%)")
    _shown_failed(run_cli("show", str(out)).stdout, "grpc-py", "20 (100.0%)")


def test_run_a_mechanism_that_completes_no_call_within_the_rate_is_failed_and_exits_1(tmp_path):
    out = tmp_path / "r.json"
    done = run_cli("run", *ORDERS, *TIMED_OUT, "--contender", "grpc-py", "-n", "20", *FAST, "--out", str(out),
                   "--max-error-rate", "100%", timeout=300)
    assert done.returncode == 1, done.stderr
    (cell,) = load(out).cells
    assert cell.status == "failed" and cell.reason.startswith("no call completed: 20 of 20 calls failed (timeout 20)")
    assert "(1 failed, 20 failed calls)" in _final(done.stderr)


def _shown_failed(answer: str, contender: str, errors: str) -> None:
    """The cell's row is in the answer, marked failed with its errors, and its reason below."""
    row = next(line for line in answer.splitlines() if f" {contender} " in line and "FAILED" in line)
    assert errors in row, answer
    assert f"failed: {contender}: " in answer, answer


# --- run and --resume: the arena's decisions, over the fake runner -----------------------------------

def _fake_run(monkeypatch, runner: FakeCells) -> None:
    monkeypatch.setattr("rpcarena.commands.run.plans_of", lambda config: fake_plans(config, runner))


def _answered(argv: list[str], capsys) -> tuple[int, str, str]:
    """`rpcarena ARGV` in this process: (exit code, stdout, stderr)."""
    said = []

    class Kept:
        def readouterr(self):
            said.append(capsys.readouterr())
            return said[-1]
    code, err = call(argv, Kept())
    return code, said[-1].out, err


@pytest.mark.parametrize("answered_wrong,empty,code", [({"grpc-py": 0.5}, (), 3), ({"grpc-py": 1.0}, (), 3),
                                                       ({}, ("grpc-py",), 1), ({"grpc-py": 0.5}, ("tcp-raw",), 1)])
def test_run_exits_as_the_table_says(monkeypatch, capsys, tmp_path, answered_wrong, empty, code):
    _fake_run(monkeypatch, FakeCells(wrong=answered_wrong, empty=empty))
    out = tmp_path / "r.json"
    got, stderr = call(["run", "--contender", "tcp-raw,grpc-py", "--workload", "usp.int32", "-n", "10",
                        "--out", str(out)], capsys)
    assert got == code, stderr
    cells = load(out).cells
    assert {c.contender: c.status for c in cells} == {"tcp-raw": "failed" if "tcp-raw" in empty else "ok",
                                                      "grpc-py": "failed"}  # (the floor measured twice)
    ok, failed = (sum(c.status == status for c in cells) for status in ("ok", "failed"))
    said = f"{ok} ok, {failed} failed" if ok else f"{failed} failed"
    errors = sum(c.error_count for c in cells)
    assert _final(stderr).endswith(f"({said}, {errors} failed calls)" if errors else f"({said})"), stderr


def test_half_failed_is_shown_after_the_ranked_rows_with_its_errors(monkeypatch, capsys, tmp_path):
    _fake_run(monkeypatch, FakeCells(wrong={"grpc-py": 0.5}))
    out = tmp_path / "r.json"
    _, answer, _ = _answered(["run", "--contender", "tcp-raw,grpc-py,rest-fastapi", "--workload", "usp.int32",
                              "--out", str(out)], capsys)
    for text in (answer, run_cli("show", str(out)).stdout):
        rows = [line.split() for line in text.splitlines() if line.strip().startswith(("1 ", "2 ", "- "))]
        assert [r[1] for r in rows] == ["rest-fastapi", "grpc-py"], text
        assert rows[1][0] == "-" and "150 (50.0%)" in " ".join(rows[1]) and "FAILED" in rows[1], text
        said = " ".join(text.split())  # its line wraps as the terminal's width says
        assert "failed: grpc-py: 150 of 300 calls failed (50.0%: wrong_answer 150), above --max-error-rate 0%" in said


def test_a_higher_max_error_rate_lets_half_failed_calls_through(monkeypatch, capsys, tmp_path):
    _fake_run(monkeypatch, FakeCells(wrong={"grpc-py": 0.5}))
    out = tmp_path / "r.json"
    code, stderr = call(["run", "--contender", "grpc-py", "--workload", "usp.int32", "--max-error-rate", "50%",
                         "--out", str(out)], capsys)
    assert code == 0 and [c.status for c in load(out).cells] == ["ok"], stderr


def test_resume_measures_again_a_cell_stored_ok_with_no_call_completed(monkeypatch, capsys, tmp_path):
    """A document written before the gate: its 'ok' cell with 0 calls is measured again."""
    doc = load(FIXTURE)
    stale = dataclasses.replace(doc.cells[0], calls=0, errors={"other": 300}, latency_histogram=None, samples_ns=[])
    doc = dataclasses.replace(doc, config=dict(doc.config, out=str(tmp_path / "r.json")), cells=[stale, *doc.cells[1:]])
    doc.save(tmp_path / "r.json")
    runner = FakeCells()
    _fake_run(monkeypatch, runner)
    code, stderr = call(["run", "--resume", str(tmp_path / "r.json")], capsys)
    assert code == 0, stderr
    assert runner.measured == ["tcp-raw<-py usp.int32 x1"]
    again = load(tmp_path / "r.json")
    assert all(c.status == "ok" and c.calls for c in again.cells) and len(again.cells) == len(doc.cells)
    assert again.resumed[-1]["failed_before"] == ["tcp-raw<-py usp.int32 x1: 300 of 300 calls failed (100.0%: other "
                                                  "300), above --max-error-rate 0%"]


# --- target: a real HTTP server answering wrong, in turn or always ------------------------------------

@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("path,rate,code,reason", [
    ("alternate", "10%", 3, "20 of 40 calls failed (50.0%: wrong_answer 20), above --max-error-rate 10%"),
    ("always", "50%", 3, "40 of 40 calls failed (100.0%: wrong_answer 40), above --max-error-rate 50%"),
    ("always", "100%", 1, "no call completed: 40 of 40 calls failed (wrong_answer 40)")])
def test_target_failed_calls_fail_the_cell_for_every_client(wrong, tmp_path, client, path, rate, code,  # noqa: F811
                                                            reason):
    out = tmp_path / "t.json"
    done = run_cli("target", f"{wrong}/{path}", "--client", client, "--expect-json", "ok=true", "--calls", "40",
                   *FAST, "--max-error-rate", rate, "--out", str(out), timeout=300)
    assert done.returncode == code, done.stderr
    (cell,) = load(out).cells
    assert cell.status == "failed" and cell.reason.startswith(reason), cell.reason
    assert _final(done.stderr).endswith(f"(1 failed, {cell.error_count:,} failed calls)"), done.stderr
    errors = f"{cell.error_count} ({cell.error_count / 40:.1%})"
    _shown_failed(done.stdout, f"http<-{client}", errors)
    _shown_failed(run_cli("show", str(out)).stdout, f"http<-{client}", errors)


# --- suite: its parts over the fake runner, with the command's own ending ------------------------------

@pytest.mark.parametrize("answered_wrong,empty,code", [({"grpc-go": 1.0, "rest-warp": 0.5}, (), 3),
                                                       ({}, ("grpc-py",), 1),
                                                       ({"grpc-go": 1.0, "rest-warp": 0.5}, ("grpc-py",), 1)])
def test_suite_exits_as_the_table_says(monkeypatch, capsys, tmp_path, answered_wrong, empty, code):
    runner = FakeCells(wrong=answered_wrong, empty=empty)

    def measured(config, console, *args, part="", quiet=False, **kwargs):
        with CellProgress(Console(stderr=True), part) as progress:
            return Arena(config, fake_plans(config, runner), progress, context=fake_context).run()
    monkeypatch.setattr("rpcarena.commands.suite.run_arena", measured)
    got, stderr = call(["suite", "predictions", "--quick", "--repeat", "1", "-o", str(tmp_path / "s.json")], capsys)
    assert got == code, stderr
    cells = load(tmp_path / "s.json").cells
    assert {c.contender for c in cells if c.status == "failed"} == {*answered_wrong, *empty}
    assert any(re.search(r" \d+ failed[,)]", line) for line in stderr.splitlines() if " cells in " in line), stderr
