"""A suite's answer advises nothing `suite` cannot do: its phases keep the calls the seed's design
gives them, and `suite` has no --calls, so neither the p99 note nor a few-calls warning names it."""

from __future__ import annotations

import dataclasses

import pytest
from rich.console import Console

import rpcarena
from rpcarena.analysis.stability import Diagnosis
from rpcarena.report import answer, causes, terminal
from tests.conftest import cli


@pytest.fixture(scope="module")
def few_calls(tmp_path_factory):
    """A made-up run (--debug-mode) of 300 calls a cell: too few for a p99."""
    out = tmp_path_factory.mktemp("few") / "r.json"
    done = cli("run", "--debug-mode", "--contender", "grpc-py,rest-fastapi", "--workload", "usp.int32",
               "--calls", "300", "--repeat", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def _said(doc) -> str:
    console = Console(record=True, width=200)
    terminal.summary(doc, console)
    return console.export_text()


def test_a_run_is_told_its_calls_option_and_a_suite_is_not(few_calls):
    assert "use --calls 1000 or more" in _said(rpcarena.load(few_calls))
    suite = dataclasses.replace(rpcarena.load(few_calls), suite={"name": "usp2018", "missing": {}})
    said = _said(suite)
    assert "--calls" not in said and answer.P99_REASON_SUITE in said


def test_a_cause_in_a_suite_names_what_a_suite_can_do(few_calls):
    suite = dataclasses.replace(rpcarena.load(few_calls), suite={"name": "usp2018", "missing": {}})
    rankings = answer.rankings(suite)
    assert rankings and all(r.suite for r in rankings)
    for check in causes.SUITE_FIXES:
        touched = [causes.Touched(rankings[0], rankings[0].entries[0], _diagnosis(check))]
        cause = causes.Cause(check, touched, 6)
        assert cause.fix == causes.SUITE_FIXES[check] and "--calls" not in cause.line(200)
    assert not [r for r in answer.rankings(rpcarena.load(few_calls)) if r.suite]


def _diagnosis(check: str) -> Diagnosis:
    return Diagnosis(check=check, text=f"{check}: made up for the test", figures=(300.0,))
