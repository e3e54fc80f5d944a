"""`rpcarena compare`: trials, not calls, decide; one trial a side cannot tell; a real slowdown is significant."""

from __future__ import annotations

import dataclasses
import os

import pytest

import rpcarena
from rpcarena.analysis import comparison, stats
from rpcarena.errors import UsageError
from tests.conftest import cli, document, trials
from tests.helpers import FIXTURE


def slowed(results, factor: float):
    """The same measured trials, every latency multiplied by `factor` (the noise kept)."""
    return dataclasses.replace(results, cells=[cell.slowed(factor) for cell in results.cells])


def five_trials(scale: float = 1.0, noise=(1.0, 1.02, 0.98, 1.01, 0.99)):
    """Two cells of five trials each, whose trials differ by a few percent."""
    return document(trials("tcp-raw", "usp.int32", scale, noise=noise),
                    trials("grpc-py", "usp.int32", 4 * scale, noise=noise))


@pytest.fixture(scope="module")
def measured():
    return rpcarena.load(FIXTURE)


def test_one_trial_a_side_cannot_tell_even_a_large_change(measured):
    # the case: 300 calls, one trial
    one = dataclasses.replace(measured, cells=[c for c in measured.cells if c.trial == 0])
    found = comparison.compare(one, slowed(one, 1.5))
    for row in found.rows:
        assert row.trials == (1, 1)
        for change in row.changes:
            assert not change.judged and not change.significant
            assert change.ratio.estimate == pytest.approx(1.5, rel=0.01)  # the effect size is still shown
            assert change.describe().endswith(stats.CANNOT_TELL)
    assert found.slowdowns(0.05) == [] and len(found.unjudged()) == len(found.rows)


def test_identical_trials_are_not_significant():
    found = comparison.compare(five_trials(), five_trials(noise=(0.99, 1.0, 1.01, 1.02, 0.98)))
    assert len(found.rows) == 2
    for row in found.rows:
        assert row.trials == (5, 5)
        for change in row.changes:
            assert change.judged and not change.significant
            assert change.describe().endswith("not significant")
    assert found.slowdowns(0.05) == []


def test_a_slowdown_is_significant_with_its_effect_size():
    found = comparison.compare(five_trials(), five_trials(1.1))
    for row in found.rows:
        for change in row.changes:
            assert change.verdict == "slower" and change.ratio.interval.low > 1
            assert change.ratio.estimate == pytest.approx(1.1, rel=0.01)
    assert len(found.slowdowns(0.05)) == 2 and found.slowdowns(0.15) == []


def test_trials_that_disagree_widen_the_interval_past_the_change():
    wild = (0.6, 1.5, 1.0, 0.8, 1.3)  # a machine whose runs differ by half
    found = comparison.compare(five_trials(), five_trials(1.1, noise=wild))
    assert all(not c.significant and c.judged for row in found.rows for c in row.changes)


def test_unmatched_cells_are_listed(measured):
    fewer = dataclasses.replace(measured, cells=[c for c in measured.cells if c.contender == "tcp-raw"])
    found = comparison.compare(measured, fewer)
    assert {k[0] for k in found.only_in_a} == {"grpc-py"} and not found.only_in_b


def test_no_common_cell_is_an_error(measured):
    other = document(trials("rest-go", "usp.int32"))
    with pytest.raises(UsageError, match="no measured cell in common: compare two runs of the same"):
        comparison.compare(measured, other)


def test_cli_exit_status(tmp_path):
    base = five_trials().save(tmp_path / "a.json")
    same = five_trials(noise=(0.99, 1.0, 1.01, 1.02, 0.98)).save(tmp_path / "same.json")
    slow = five_trials(1.5).save(tmp_path / "slow.json")
    result = cli("compare", str(base), str(same), "--fail-if-slower", "5%")
    assert result.returncode == 0, result.stderr
    assert "not significant" in result.stdout
    worse = cli("compare", str(base), str(slow), "--fail-if-slower", "5%")
    assert worse.returncode == 3, worse.stderr  # 3: a regression, told apart from 1, a runtime error
    assert "significantly slower" in worse.stderr and "1.50x" in worse.stdout  # the failed gate on stderr


def test_cli_never_fails_a_threshold_it_cannot_judge(measured, tmp_path):
    one = dataclasses.replace(measured, cells=[c for c in measured.cells if c.trial == 0])
    before, after = one.save(tmp_path / "one.json"), slowed(one, 1.5).save(tmp_path / "one-slow.json")
    result = cli("compare", str(before), str(after), "--fail-if-slower", "5%")
    assert result.returncode == 0, result.stderr
    assert "cannot tell: run with --repeat 3 or more" in result.stdout


def test_cli_no_common_cell_exits_2(tmp_path):
    other = document(trials("rest-go", "usp.int32")).save(tmp_path / "other.json")
    result = cli("compare", str(FIXTURE), str(other))
    assert result.returncode == 2
    assert "no measured cell in common" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_cli_says_when_not_significant_means_the_trials_were_too_noisy_to_see_ten_percent(tmp_path):
    wild = (0.6, 1.5, 1.0, 0.8, 1.3)
    base = five_trials().save(tmp_path / "a.json")
    noisy = five_trials(1.1, noise=wild).save(tmp_path / "b.json")
    result = cli("compare", str(base), str(noisy), env={**os.environ, "COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "would be caught 4 times in 5" in line]
    assert len(lines) == 2 and all("catching 10% takes about --repeat" in line for line in lines)
    same = five_trials(noise=(0.99, 1.0, 1.01, 1.02, 0.98)).save(tmp_path / "c.json")
    calm = cli("compare", str(base), str(same))
    assert "would be caught" not in calm.stdout  # trials that agree could have seen 10%: nothing to add


def test_two_runs_are_compared_with_what_runs_differ_by_beyond_their_trials():
    found = comparison.compare(five_trials(), five_trials(1.03))  # trials agree to 2%: within a run, 3% would show
    assert all(not c.significant and c.ratio.between == stats.RUN_TO_RUN for r in found.rows for c in r.changes)
