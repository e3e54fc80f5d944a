"""Conventions of the field (issue 40): other tools' option names get rpcarena's, durations compound,
a failed gate goes to stderr, the full table names each trial, `list` fits 80 columns a line each."""

from __future__ import annotations

import dataclasses
import os

import pytest

from rpcarena.config import parse_duration
from rpcarena.errors import UsageError
from tests.conftest import FIXTURE, document, run_cli, trials


@pytest.mark.parametrize("argv, ours", [
    (["run", "--rps", "100"], "--rate"), (["run", "-R", "100"], "--rate"), (["run", "-d", "10s"], "-z/--duration"),
    (["run", "--concurrency", "8"], "-c/--clients"), (["run", "-t", "8"], "-c/--clients"),
    (["run", "--runs", "5"], "--repeat"), (["target", "--call", "a.B/C"], "--method"),
])
def test_another_tools_option_gets_a_one_line_hint_naming_rpcarenas(argv, ours):
    done = run_cli(*argv, timeout=60)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert f"(did you mean {ours}? rpcarena's name for {argv[1]})" in lines[0]
    assert f"(see rpcarena {argv[0]} --help)" in lines[0]


def test_a_peers_option_the_command_lacks_is_not_offered():
    done = run_cli("show", str(FIXTURE), "--rps", "1", timeout=60)
    assert done.returncode == 2 and "did you mean" not in done.stderr and "show --help" in done.stderr


@pytest.mark.parametrize("text, seconds", [("1m30s", 90.0), ("2h30m", 9000.0), ("1min30s", 90.0), ("1s500ms", 1.5)])
def test_durations_compound_as_go_reads_them(text, seconds):
    assert parse_duration(text, "-z") == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["1m30", "30s1", "m"])
def test_a_compound_duration_with_a_bare_part_is_refused(text):
    with pytest.raises(UsageError, match="1m30s"):
        parse_duration(text, "-z")


def test_a_failed_regression_gate_goes_to_stderr(tmp_path):
    before = document(trials("grpc-py", "usp.int32")).save(tmp_path / "before.json")
    after = document(trials("grpc-py", "usp.int32", 1.5)).save(tmp_path / "after.json")
    done = run_cli("compare", str(before), str(after), "--fail-if-slower", "5%", timeout=60)
    assert done.returncode == 3
    assert "significantly slower by more than 5%" in done.stderr and "significantly slower" not in done.stdout


def test_the_wide_table_names_each_trial_from_1(tmp_path):
    path = document(trials("grpc-py", "usp.int32", noise=(1.0, 1.02, 0.98))).save(tmp_path / "r.json")
    done = run_cli("show", str(path), "--wide", env=dict(os.environ, COLUMNS="80"), timeout=60)
    header, _, *rows = done.stdout.splitlines()
    assert "trial" in header.split()
    at = header.split().index("trial")
    assert [row.split()[at] for row in rows[:3]] == ["1", "2", "3"]
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


def test_list_is_a_line_per_contender_in_80_columns_and_plain_in_a_pipe():
    done = run_cli("list", timeout=120)  # a pipe: no COLUMNS, no terminal
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and max(len(line) for line in lines) <= 80
    assert not [line for line in lines if set(line) & set("│┃━─┏┗")]  # no box drawing
    rows = [line.split() for line in lines if line.startswith("  ") and len(line.split()) >= 4]
    assert {"grpc-go", "rest-fastapi", "tcp-raw"} <= {row[0] for row in rows}
    assert len([row for row in rows if row[0] == "grpc-go"]) == 1


def test_list_name_says_the_rest_of_one_and_a_typo_gets_its_fix():
    done = run_cli("list", "rest-fastapi", timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("contender: rest-fastapi\n")
    assert "clients: py, py-requests" in done.stdout and "what it is: FastAPI" in done.stdout
    workload = run_cli("list", "usp.int32", timeout=120)
    assert "method: EchoInt32" in workload.stdout
    typo = run_cli("list", "grpc-gp", timeout=120)
    assert typo.returncode == 2 and "did you mean 'grpc-py'?" in typo.stderr


def test_a_run_ends_with_the_command_that_draws_its_report(tmp_path):
    from rich.console import Console

    from rpcarena.commands.run import finish
    console = Console(record=True, width=200)
    doc = dataclasses.replace(document(trials("grpc-py", "usp.int32")), path=tmp_path / "r.json")
    finish(doc, console, 0.0)
    assert console.export_text().strip() == f"results: {doc.path}; HTML: rpcarena report {doc.path}"
