"""The server over a measured phase, interval by interval: its memory and its bytes on the wire.

The drivers count calls per interval; what they cannot see is the server's side. A thread of the
orchestrator reads the server's resident set (/proc) and the kernel's byte counters
(`network.wire`, where they count) at each interval's end, from the moment the drivers are
released. Each reading is tagged with the interval it closes, so the entries line up with the
drivers' `intervals` by `start_s` (to within the few milliseconds between the release and the
drivers' own start). A soak keeps one small entry per interval, never samples.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

from rpcarena.network import wire
from rpcarena.record.intervals import ServerIntervalEntry

Reading = tuple[int | None, wire.Count | None]  # (resident bytes, wire counters)


class ServerSampler:
    """Reads the server every `interval_s` on its own thread, between `start` and `stop`."""

    def __init__(self, interval_s: float, read: Callable[[], Reading]) -> None:
        self.interval_s = interval_s
        self.read = read
        self.entries: list[ServerIntervalEntry] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="server-sampler", daemon=True)
        self._before: Reading = (None, None)
        self._began = 0.0

    def start(self) -> None:
        """The measured phase begins now: the first interval opens."""
        self._before, self._began = self.read(), time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        """The phase ended (or failed): the thread ends, the open interval's reading is taken."""
        if self._thread.is_alive():
            self._stopped.set()
            self._thread.join()
            self._close(len(self.entries))

    def series(self, count: int) -> list[ServerIntervalEntry]:
        """Every interval, in order, for a phase of `count` intervals (the drivers'): the readings taken
        after the phase's end (ticks while the drivers wrote their results, and the stop's) add their
        bytes to the phase's last interval, so the entries line up with the drivers' intervals."""
        last = max(count, 1) - 1
        if len(self.entries) <= last + 1:
            return self.entries
        return [*self.entries[:last], functools.reduce(joined, self.entries[last:])]

    def _run(self) -> None:
        k = 0
        # each tick at its own deadline from the start, so a slow read does not shift the ones after
        while not self._stopped.wait(max(0.0, self._began + (k + 1) * self.interval_s - time.monotonic())):
            self._close(k)
            k += 1

    def _close(self, k: int) -> None:
        now = self.read()
        self.entries.append(entry(k * self.interval_s, now, self._before))
        self._before = now


def joined(entry: ServerIntervalEntry, after: ServerIntervalEntry) -> ServerIntervalEntry:
    """An interval with a moment after it: the bytes of both; the resident bytes at its own end."""
    return ServerIntervalEntry(start_s=entry["start_s"],
                               rss_bytes=entry["rss_bytes"] if entry["rss_bytes"] is not None else after["rss_bytes"],
                               wire_in_bytes=_added(entry["wire_in_bytes"], after["wire_in_bytes"]),
                               wire_out_bytes=_added(entry["wire_out_bytes"], after["wire_out_bytes"]))


def _added(one: int | None, other: int | None) -> int | None:
    return None if one is None or other is None else one + other


def entry(start_s: float, now: Reading, before: Reading) -> ServerIntervalEntry:
    """One interval of the server: its resident bytes at the end, the bytes both ways in it."""
    rss, count = now
    moved = count - before[1] if count is not None and before[1] is not None else None
    return {"start_s": round(start_s, 6), "rss_bytes": rss,
            "wire_in_bytes": moved.in_bytes if moved else None, "wire_out_bytes": moved.out_bytes if moved else None}
