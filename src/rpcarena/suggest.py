"""Did-you-mean for names users type (contenders, workloads, suites, options): the closest
known name, so that a typo ends in its fix rather than in a list to read."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # difflib's ratio: below it a "suggestion" is noise


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the known name closest to `word`, or '' when none is close."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=CUTOFF)
    return f" (did you mean {close[0]!r}?)" if close else ""
