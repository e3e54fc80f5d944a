"""--find-max's answer survives its results file (issue 40): `show`, `report` and `export` state the
maximum, the objective as typed and the spread over searches, and its probes are steps of a search,
never contenders ranked against the capacity run. The search runs the real arena over fake cells."""

from __future__ import annotations

import argparse
import csv
import io
import json

import pytest
from rich.console import Console

import rpcarena
from rpcarena import report
from rpcarena.commands import run
from rpcarena.config import RunConfig
from rpcarena.report import searches
from tests.conftest import fake_plans, run_cli


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    out = tmp_path_factory.mktemp("findmax") / "fm.json"
    config = RunConfig(contenders=["grpc-py"], workloads=["usp.int32"], calls=50, warmup_s=0, repeat=2, out=out)
    console = Console(record=True, width=80)
    run.find_max_arena(config, "p99<5ms", console, todo=fake_plans(config), args=argparse.Namespace(quiet=True))
    return out, console.export_text()


def test_the_search_answers_with_its_maximum_and_the_objective_as_typed(searched):
    out, printed = searched
    assert "answer, the highest rate meeting the objective:" in printed
    assert "max 5,445 calls/s meeting p99<5ms" in " ".join(printed.split())
    assert "2 searches: 5,445 to 5,445/s" in " ".join(printed.split())
    assert "5000us" not in printed and "at 2,311/s" not in printed and "★ best" not in printed


def test_show_says_what_the_search_said(searched):
    out, printed = searched
    shown = run_cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split("results:")[0].split() == printed.split()
    data = json.loads(run_cli("show", str(out), "--format", "json").stdout)
    (search,) = data["find_max"]
    assert search["slo"] == "p99<5ms" and search["max_rate_per_s_by_trial"] == [pytest.approx(5445.0, abs=1)] * 2
    assert [len(steps) for steps in search["steps"]] == [6, 6]
    md = run_cli("show", str(out), "--format", "markdown").stdout
    assert md.startswith("**answer, the highest rate meeting the objective:**") and "meeting p99<5ms" in md
    assert all(e["contender"] == "grpc-py" for r in data["rankings"] for e in r["entries"])  # the capacity run only
    assert len([e for r in data["rankings"] for e in r["entries"]]) == 1


def test_report_and_export_say_it_too(searched, tmp_path):
    out, _ = searched
    page = report.write_html([report.Source("fm", rpcarena.load(out))], tmp_path / "fm.html").read_text()
    summary = page[page.index('<section id="summary"'):page.index('id="contents"')]
    assert "Highest rate meeting the objective" in summary and "p99&lt;5ms" in summary and "5,445" in summary
    assert "2,311/s" not in page  # no probe named as a contender
    rows = list(csv.DictReader(io.StringIO(run_cli("export", str(out), "--format", "csv").stdout)))
    steps = sorted(int(r["find_max_step"]) for r in rows)
    assert steps[:2] == [0, 0] and max(steps) == 6 and {r["find_max_slo"] for r in rows} == {"p99<5ms"}


def test_a_document_from_before_reads_its_objective_in_the_largest_whole_unit():
    assert searches.slo_text({"slo": ["p99<5000us", "mean<=1500us"]}) == "p99<5ms,mean<=1500us"
    assert searches.slo_text({"slo": ["p99.9<2000000us"], "slo_typed": "p99.9<2s"}) == "p99.9<2s"
