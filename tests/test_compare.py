"""`rpcarena compare`: a real slowdown is significant, the same run against itself is not."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import run_cli

import rpcarena
from rpcarena.analysis import comparison
from rpcarena.errors import UsageError

FIXTURE = Path(__file__).parent / "fixtures" / "results_usp_int32_small.json"


def slowed(results, fraction: float):
    """The same measured calls, each delayed by a fixed fraction of the cell's median (an injected delay)."""
    out = copy.deepcopy(results)
    for cell in out.cells:
        delay = int(np.median([ns for _, ns in cell.samples_ns]) * fraction)
        cell.samples_ns = [[i, ns + delay] for i, ns in cell.samples_ns]
    return out


@pytest.fixture(scope="module")
def measured():
    return rpcarena.load(FIXTURE)


def test_identical_runs_are_not_significant(measured):
    found = comparison.compare(measured, copy.deepcopy(measured))
    assert len(found.rows) == 4
    for row in found.rows:
        for change in row.changes:
            assert not change.significant and "not significant" in change.describe()
    assert found.slowdowns(0.05) == []


def test_an_injected_delay_is_a_significant_slowdown(measured):
    found = comparison.compare(measured, slowed(measured, 0.5))
    medians = [row.changes[0] for row in found.rows]
    assert all(c.significant and c.change.low > 0 for c in medians)
    assert len(found.slowdowns(0.05)) == 4 and found.slowdowns(0.9) == []


def test_unmatched_cells_are_listed(measured):
    fewer = copy.deepcopy(measured)
    fewer.cells = [c for c in fewer.cells if c.contender == "tcp-raw"]
    found = comparison.compare(measured, fewer)
    assert {k[0] for k in found.only_in_a} == {"grpc-py"} and not found.only_in_b


def test_threshold_parsing():
    assert comparison.parse_threshold("5%") == pytest.approx(0.05)
    assert comparison.parse_threshold("0.1") == pytest.approx(0.1)
    with pytest.raises(UsageError, match="percentage"):
        comparison.parse_threshold("five")


def test_cli_exit_status(measured, tmp_path):
    slow = slowed(measured, 0.5).save(tmp_path / "slow.json")
    same = run_cli("compare", str(FIXTURE), str(FIXTURE), "--fail-if-slower", "5%")
    assert same.returncode == 0, same.stderr
    assert "not significant" in same.stdout
    worse = run_cli("compare", str(FIXTURE), str(slow), "--fail-if-slower", "5%")
    assert worse.returncode == 1, worse.stderr
    assert "significantly slower" in worse.stdout
