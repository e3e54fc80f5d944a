"""One client's measured phase, interval by interval: the histogram and errors of the calls begun
in each (open loop: due in each), closed as the client's clock passes the interval's end.

A client checks one clock reading per call against `next_ns`; the rest happens once a second.
A closed interval is kept encoded (a few hundred bytes), so a soak of hours stays small.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from rpcarena.record import hist, intervals
from rpcarena.record.intervals import IntervalEntry

NEVER_NS = 2**63 - 1


class Recorder:
    """The intervals of one client; `histogram` is the open interval's."""

    def __init__(self, interval_s: float, on_close: Callable[[IntervalEntry], None] | None = None) -> None:
        self.interval_ns = max(1, int(interval_s * 1e9))
        self.on_close = on_close  # told each interval as it closes (the driver's live line to the orchestrator)
        self.histogram = hist.new()
        self.closed: list[IntervalEntry] = []
        self.start_ns, self.index, self.next_ns = 0, 0, NEVER_NS
        self._errors_before: Counter[str] = Counter()

    def begin(self, start_ns: int) -> None:
        """The measured phase starts (every client of a driver process shares its start)."""
        self.start_ns, self.index, self.next_ns = start_ns, 0, start_ns + self.interval_ns

    def roll(self, now_ns: int, errors: Counter[str]) -> None:
        """The interval holding `now_ns` opens; the one before is closed with the errors counted since."""
        self.close(errors)
        self.index = (now_ns - self.start_ns) // self.interval_ns
        self.next_ns = self.start_ns + (self.index + 1) * self.interval_ns

    def close(self, errors: Counter[str]) -> None:
        new_errors = errors - self._errors_before
        if self.histogram.get_total_count() or new_errors:
            self.closed.append(intervals.entry(self.index * self.interval_ns / 1e9, self.histogram, new_errors))
            self.histogram = hist.new()
            if self.on_close is not None:
                self.on_close(self.closed[-1])
        self._errors_before = Counter(errors)
