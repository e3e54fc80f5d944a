"""Slower worker heartbeats on a measuring node, through Dask's documented worker-plugin API.

A worker heartbeats as often as its scheduler answers (`heartbeat-interval` in each reply: 0.5 s
up to ten workers, hard-coded in `distributed.scheduler.heartbeat_interval`, which no setting
changes). Replacing that function on the scheduler would change a cluster the user keeps after
the run, and every client of it. Instead rpcarena registers this plugin for the run
(`Client.register_plugin`): on each worker, including one that joins or restarts mid-run, the
heartbeat's timer keeps at least HEARTBEAT_S whatever the scheduler asks, and when the run ends
(the plugin is unregistered) the worker's own timer is put back. A worker that dies is still seen
at once (its connection closes); the worker TTL (5 minutes) is far above HEARTBEAT_S.
"""

from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin
from tornado.ioloop import PeriodicCallback

HEARTBEAT_S = 5.0  # a worker's heartbeat, every 0.5 s on a small cluster
NAME = "rpcarena-slow-heartbeat"


class _AtLeast(PeriodicCallback):
    """A timer whose period never drops below a floor (the scheduler's replies set it)."""

    def __init__(self, callback: Any, callback_time_ms: float, floor_ms: float) -> None:
        self._floor_ms = floor_ms
        super().__init__(callback, callback_time_ms)

    @property
    def callback_time(self) -> float:
        return self._callback_time

    @callback_time.setter
    def callback_time(self, value: float) -> None:
        self._callback_time = max(float(value), self._floor_ms)


class SlowHeartbeat(WorkerPlugin):
    """The worker's heartbeat every HEARTBEAT_S at least, for as long as the plugin is registered."""

    name = NAME
    idempotent = True

    def __init__(self, seconds: float = HEARTBEAT_S) -> None:
        self.seconds = seconds
        self._original: PeriodicCallback | None = None

    def setup(self, worker: Any) -> None:
        original = worker.periodic_callbacks.get("heartbeat")
        if original is None or isinstance(original, _AtLeast):
            return
        slow = _AtLeast(original.callback, original.callback_time, self.seconds * 1000)
        self._swap(worker, original, slow)
        self._original = original

    def teardown(self, worker: Any) -> None:
        current = worker.periodic_callbacks.get("heartbeat")
        if self._original is not None and isinstance(current, _AtLeast):
            self._swap(worker, current, self._original)

    @staticmethod
    def _swap(worker: Any, old: PeriodicCallback, new: PeriodicCallback) -> None:
        running = old.is_running()
        old.stop()
        worker.periodic_callbacks["heartbeat"] = new
        if running:
            new.start()
