"""Every gate a person types (`--fail-if-slower`, `--slo`, `--max-error-rate`): what is accepted
catches a doubling, what is refused is one line and exit 2. A typo must never switch a gate off."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rpcarena import thresholds
from rpcarena.analysis import slo
from rpcarena.errors import UsageError
from rpcarena.orchestration import error_gate
from rpcarena.record import hist
from rpcarena.results import Cell
from tests.analysis.test_comparison import five_trials
from tests.commands.test_input_checks import RUN, _stub_measuring, call, one_line

PROPERTY = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
NUMBERS = st.one_of(st.floats(0, 2).map(repr), st.floats(0, 120).map(lambda v: f"{v:g}"), st.integers(0, 120).map(str),
                    st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-10**6, 10**6).map(str),
                    st.sampled_from(["nan", "inf", "-inf", "1e309", "1e-400", "0", "00", ".5", "5.", "1e2", "",
                                     "0x10", "½", "5 5", "1_0"]))
UNITS = st.sampled_from(["", "%", "x", "X", " %", "%%", "ms", "s", "us", "pct", "x%"])
NEAR = st.tuples(st.one_of(st.floats(0, 1.6).map(repr), st.floats(0, 60).map(lambda v: f"{v:g}")),
                 st.sampled_from(["%", "x"])).map("".join)  # about half of these are accepted
TEXTS = st.one_of(NEAR, st.tuples(NUMBERS, UNITS).map("".join), st.text(max_size=8))


@pytest.fixture(scope="module")
def doubled(tmp_path_factory):
    """A baseline of five trials, and the same trials twice as slow."""
    folder = tmp_path_factory.mktemp("doubled")
    return str(five_trials().save(folder / "a.json")), str(five_trials(2.0).save(folder / "b.json"))


@pytest.mark.parametrize("text,share", [("5%", 0.05), ("1.05x", 0.05), ("0.5%", 0.005), ("50%", 0.5),
                                        (" 10 % ", 0.1), ("1.5X", 0.5), ("1e1%", 0.1)])
def test_a_slowdown_with_its_unit_is_read(text, share):
    assert thresholds.slowdown(text) == pytest.approx(share)


@pytest.mark.parametrize("text,needle", [("5", "5%?"), ("0.05", "needs its unit"), ("nan", "percentage"),
                                         ("inf%", "percentage"), ("", "percentage"), ("1e309%", "percentage"),
                                         ("500%", "doubling"), ("2x", "doubling"), ("0%", "no slowdown"),
                                         ("1x", "no slowdown"), ("-5%", "percentage"), ("5ms", "percentage")])
def test_a_slowdown_without_unit_or_bounds_is_refused(text, needle):
    with pytest.raises(UsageError, match="--fail-if-slower") as error:
        thresholds.slowdown(text)
    assert needle in str(error.value)


@PROPERTY
@given(TEXTS)
def test_compare_never_passes_a_doubling_whatever_the_threshold(doubled, capsys, text):
    """Accepted: exit 3 on a 2x slowdown. Refused: exit 2 and one line. Never 0, never a traceback."""
    code, err = call(["compare", *doubled, "--fail-if-slower", text], capsys)
    if code == 2:
        one_line(code, err, "--fail-if-slower")
    else:
        assert code == 3, (text, code, err)


def test_the_issue_s_typos_fail_compare_in_one_line(doubled, capsys):
    for text in ("nan", "inf%", "", "1e309%", "5"):
        one_line(*call(["compare", *doubled, "--fail-if-slower", text], capsys), "--fail-if-slower")
    assert call(["compare", *doubled, "--fail-if-slower", "5%"], capsys)[0] == 3


def _cell(value_ns: int) -> Cell:
    """A cell of 100 calls that each took `value_ns`."""
    histogram = hist.new()
    histogram.record_value(value_ns, 100)
    return Cell(contender="x", client="py", workload="w", method="Void", clients=1, calls=100,
                latency_histogram=hist.encode(histogram))


STATISTICS = st.one_of(st.sampled_from(["mean", "max", "p50", "p99", "p99.9", "p100", "p101", "p0", "p", "p-1"]),
                       st.floats(0, 200).map(lambda p: f"p{p:g}"))
OBJECTIVES = st.one_of(st.tuples(STATISTICS, st.sampled_from(["<", "<=", ">", "="]), TEXTS).map("".join),
                       st.text(max_size=12))


@PROPERTY
@given(st.lists(OBJECTIVES, min_size=1, max_size=3).map(",".join))
def test_an_accepted_slo_fails_a_doubling_and_a_refused_one_is_one_line(tmp_path, capsys, text):
    try:
        objectives = slo.parse(text)
    except UsageError as error:
        assert "--slo" in str(error) and "\n" not in str(error)
        with pytest.MonkeyPatch.context() as patch:
            _stub_measuring(patch)
            one_line(*call([*RUN, "--find-max", "--slo", text, "--out", str(tmp_path / "r.json")], capsys), "--slo")
        return
    for objective in objectives:
        meets_ns = round(objective.limit_us * 1e3 * 0.6)
        assume(1_000 <= meets_ns <= 20 * 10**9)  # within what a histogram records, 3 digits exact
        assert objective.met_by(_cell(meets_ns)), objective
        assert not objective.met_by(_cell(2 * meets_ns)), objective


@pytest.mark.parametrize("text", ["p101<5ms", "p99<5", "p0<1ms", "p99<0ms", "p99<5ms,", "mean<", ""])
def test_an_slo_out_of_range_or_without_unit_is_refused_before_anything_starts(text, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    one_line(*call([*RUN, "--find-max", "--slo", text, "--out", str(tmp_path / "r.json")], capsys), "--slo")


def test_an_empty_slo_without_find_max_is_refused(tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    one_line(*call([*RUN, "--slo", "", "--out", str(tmp_path / "r.json")], capsys), "--find-max")


@PROPERTY
@given(TEXTS)
def test_an_accepted_error_rate_fails_twice_as_many_errors(text):
    try:
        rate = thresholds.share(text, "--max-error-rate")
    except UsageError as error:
        assert "--max-error-rate" in str(error) and "\n" not in str(error)
        return
    assert 0 <= rate <= 1 and math.isfinite(rate)
    sent = 10**6
    failed = min(sent, max(1, math.ceil(2 * rate * sent)))
    cell = Cell(contender="x", client="py", workload="w", method="Void", clients=1, calls=sent - failed,
                errors={"timeout": failed})
    if failed / sent > rate:
        assert "--max-error-rate" in (error_gate.reason(cell, rate) or "")


@pytest.mark.parametrize("text,rate", [("0", 0.0), ("0%", 0.0), ("1%", 0.01), ("0.1%", 0.001), ("100%", 1.0)])
def test_an_error_rate_with_its_unit_is_read(text, rate):
    assert thresholds.share(text, "--max-error-rate") == pytest.approx(rate)


@pytest.mark.parametrize("text", ["1", "0.01", "nan%", "inf%", "", "101%", "1e309%", "-1%", "1x"])
def test_an_error_rate_without_unit_or_bounds_is_refused(text, capsys, monkeypatch, tmp_path):
    _stub_measuring(monkeypatch)
    argv = ["target", "http://127.0.0.1:9/x", "--max-error-rate", text, "--out", str(tmp_path / "t.json")]
    one_line(*call(argv, capsys), "--max-error-rate")
