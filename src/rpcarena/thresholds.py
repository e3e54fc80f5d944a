"""The thresholds a person types to gate a run: always with their unit, finite, within bounds.

A gate that a typo switches off is worse than none: CI stays green. So a bare number is
refused (`5` could mean 5% or 500%), as are nan, inf, '' and anything past the bound
beyond which the gate would let a doubling through. `--slo` limits (durations) are
checked in `analysis.slo`, with their own unit rule.
"""

from __future__ import annotations

import math
import re

from rpcarena.errors import UsageError

# a plain decimal number (an exponent allowed) and its unit: no sign, no nan, no inf
_AMOUNT = re.compile(r"\s*((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(%|x|X)?\s*")
# The loosest regression gate: a median 1.5x the baseline must still fail it, and a 2x one surely.
MAX_SLOWDOWN = 0.5


def _amount(text: str) -> tuple[float, str] | None:
    """(number, unit) of '5%', '1.05x', '0'; None when it is not one."""
    match = _AMOUNT.fullmatch(text)
    if not match:
        return None
    value = float(match.group(1))
    return (value, (match.group(2) or "").lower()) if math.isfinite(value) else None


def slowdown(text: str, option: str = "--fail-if-slower") -> float:
    """'5%' or '1.05x' -> 0.05: how much slower than the baseline fails the gate, above 0 and at most
    MAX_SLOWDOWN (50%, 1.5x)."""
    fix = f"write a percentage such as 5% (or a ratio such as 1.05x), above 0% and at most {MAX_SLOWDOWN:.0%}"
    amount = _amount(text)
    if amount is None:
        raise UsageError(f"bad {option} {text!r}: {fix}")
    value, unit = amount
    if not unit:
        raise UsageError(f"bad {option} {text!r}: a threshold needs its unit ({value:g}%?): {fix}")
    share = value / 100 if unit == "%" else value - 1
    if share > MAX_SLOWDOWN:
        raise UsageError(f"bad {option} {text!r}: a gate this loose lets a doubling through; {fix}")
    if share <= 0:
        raise UsageError(f"bad {option} {text!r}: {fix} (1x and below is no slowdown)")
    return share


def share(text: str, option: str) -> float:
    """'1%' -> 0.01: a share of the calls from 0% to 100%; '0' alone needs no unit (none may fail)."""
    fix = "write a percentage of the calls sent from 0% to 100%, such as 1% or 0.1%"
    amount = _amount(text)
    if amount is None or amount[1] == "x":
        raise UsageError(f"bad {option} {text!r}: {fix}")
    value, unit = amount
    if not unit and value != 0:
        raise UsageError(f"bad {option} {text!r}: a share needs its unit ({value * 100:g}% or {value:g}%?): {fix}")
    rate = value / 100 if unit else 0.0
    if not 0 <= rate <= 1:
        raise UsageError(f"bad {option} {text!r}: {fix}")
    return rate
