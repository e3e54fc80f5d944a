"""The forms proto JSON gives the values JSON has no literal for, shared by the codecs that convert a
user's messages to and from canonical (proto JSON) dicts: NaN and the infinities are words."""

from __future__ import annotations

import math

WORDS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def float_text(value: float) -> float | str:
    """A float as proto JSON writes it: itself, or "NaN", "Infinity", "-Infinity"."""
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def float_of(value: float | int | str) -> float:
    """A float field's value as proto JSON may write it (a number or one of the words)."""
    return WORDS[value] if isinstance(value, str) else float(value)
