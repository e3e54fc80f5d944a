"""The configuration's parsing: durations with their units, counts, every field's bounds."""

from __future__ import annotations

import pytest

from rpcarena.config import RunConfig, parse_duration, parse_ints
from rpcarena.errors import UsageError


@pytest.mark.parametrize("text,seconds", [("10s", 10.0), ("500ms", 0.5), ("2m", 120.0), ("1.5s", 1.5),
                                          ("250us", 0.00025), ("0", 0.0)])
def test_parse_duration(text, seconds):
    assert parse_duration(text, "--duration") == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["ten", "5 parsecs", "-1s", "", "5", "1.5"])  # a bare number: which unit?
def test_parse_duration_rejects(text):
    with pytest.raises(UsageError, match="--duration"):
        parse_duration(text, "--duration")


def test_parse_ints():
    assert parse_ints("1,8,32", "--clients") == [1, 8, 32]
    for bad in ("0", "a,b", "", "4,-1"):
        with pytest.raises(UsageError, match="--clients"):
            parse_ints(bad, "--clients")


@pytest.mark.parametrize("field,value,needle", [("calls", 0, "--calls"), ("repeat", 0, "--repeat"),
                                                ("pin", "diagonal", "--pin"), ("port", 70000, "--port"),
                                                ("rate_per_s", -5, "--rate"), ("arrival", "bursty", "--arrival")])
def test_config_rejects(field, value, needle):
    with pytest.raises(UsageError, match=needle):
        RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], **{field: value})
