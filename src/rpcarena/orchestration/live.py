"""The running cell, interval by interval, as its drivers close them: the live progress line.

A driver that says its intervals as they close (the Python driver: one line per client per
interval) is read while the phase runs; the lines of one start are summed across clients and
driver processes, and an interval is told once every client has said it, or else once a later one
begins (a client slow to close its interval: its share that comes after that is left out of the
line, never out of the result, which merges every driver's own list).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rpcarena.record import hist
from rpcarena.record.intervals import LiveInterval


class LiveSeries:
    """Sums the interval lines of a phase by start and tells each interval once all `clients` have
    said it (one line each), or once a later one begins."""

    def __init__(self, interval_s: float, tell: Callable[[LiveInterval], None], clients: int | None = None) -> None:
        self.interval_s, self.tell, self.clients = interval_s, tell, clients
        self.start: float | None = None
        self.told = False  # the interval at `start` was told already
        self.histogram = hist.new()
        self.errors = self.lines = 0

    def add(self, line: dict[str, Any]) -> None:
        start = float(line["start_s"])
        if self.start is not None and (start < self.start or (start == self.start and self.told)):
            return  # an interval already told: too late for the line
        if self.start is not None and start > self.start:
            if not self.told:
                self.tell(self._closed())
            self.histogram, self.errors, self.lines, self.told = hist.new(), 0, 0, False
        self.start = start
        if line.get("histogram"):
            self.histogram.add(hist.decode(line["histogram"]))
        self.errors += sum((line.get("errors") or {}).values())
        self.lines += 1
        if self.clients is not None and self.lines >= self.clients:
            self.told = True
            self.tell(self._closed())

    def _closed(self) -> LiveInterval:
        calls = self.histogram.get_total_count()
        latency = hist.summary_us(self.histogram) if calls else {}
        return LiveInterval(float(self.start or 0.0), (calls + self.errors) / self.interval_s, latency.get("p99_us"),
                            self.errors, calls, latency)
