"""`--connections M`: a Python driver's N client threads sharing M connections.

A Python client object is one connection. With the spec's `connections` set, the driver opens M
of them and gives each thread a `Shared` in front: where the client multiplexes (`multiplexes`:
a grpcio channel takes calls from many threads at once) thread i calls connection i mod M, so
calls spread round-robin with many in flight on each; elsewhere (HTTP/1.1, Thrift, RPyC, the
framed protocols, whose Python clients read the reply of the call they sent) the M connections
are a pool and a call waits for a free one, that wait recorded (`histogram_conn_wait`), first
come first served (`Free`). `Gauge` counts the calls in flight at once, sent and not yet answered.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from rpcarena.record import hist


class Gauge:
    """Calls in flight at once: the maximum, and the mean sampled at each call's start (that call
    counted), over what was measured since `reset`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.now = self.max = self.starts = self.total = 0

    def enter(self) -> None:
        with self._lock:
            self.now += 1
            self.max = max(self.max, self.now)
            self.starts += 1
            self.total += self.now

    def leave(self) -> None:
        with self._lock:
            self.now -= 1

    def figures(self) -> dict[str, Any]:
        return {"inflight_max": self.max, "inflight_mean": self.total / self.starts if self.starts else 0.0}


class Free:
    """The free connections, handed to waiting calls in the order they came (as Go's Transport hands
    a returned connection to its oldest waiter). A plain queue lets the thread that returns one take
    it straight back for its next call while a woken waiter is still getting the GIL: under load
    one call then waited 2 s for a connection whose calls took 5 ms, p50 of the waits 1 µs."""

    def __init__(self, connections: list[Any]) -> None:
        self._lock = threading.Lock()
        self._free = deque(connections)
        self._waiting: deque[_Turn] = deque()

    def get(self) -> Any:
        with self._lock:
            if self._free:  # none are free while calls wait: a returned one goes to a waiter
                return self._free.popleft()
            turn = _Turn()
            self._waiting.append(turn)
        turn.handed.acquire()
        return turn.connection

    def put(self, connection: Any) -> None:
        with self._lock:
            if not self._waiting:
                self._free.append(connection)
                return
            turn = self._waiting.popleft()
        turn.connection = connection
        turn.handed.release()


class _Turn:
    """A waiting call's place in line: `handed` is held until a giver puts `connection` in it."""

    def __init__(self) -> None:
        self.handed = threading.Lock()
        self.handed.acquire()
        self.connection: Any = None


class Shared:
    """One client thread's view of the shared connections: the client's interface, each call
    made on a connection it may share (multiplexed) or borrows from the pool (one call at a time)."""

    def __init__(self, pool: Pool, i: int) -> None:
        self.pool, self.i = pool, i
        self.first = pool.connections[i % len(pool.connections)]  # prepare, expect, classify, ...
        self.wait = hist.new() if pool.free is not None else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.first, name)

    def call(self, request: Any) -> Any:
        if self.pool.free is None:
            return self._counted(self.first, request)
        start = time.perf_counter_ns()
        connection = self.pool.free.get()
        assert self.wait is not None
        self.wait.record_value(max(1, time.perf_counter_ns() - start))
        try:
            return self._counted(connection, request)
        finally:
            self.pool.free.put(connection)

    def _counted(self, connection: Any, request: Any) -> Any:
        gauge = self.pool.gauge
        gauge.enter()
        try:
            return connection.call(request)
        finally:
            gauge.leave()

    def reconnect(self) -> None:
        """A shared connection reconnects by itself (grpcio) or before its next call (the others)."""

    def close(self) -> None:
        """The pool closes the connections, once."""


class Pool:
    """The M connections of one driver process and what their sharing measured."""

    def __init__(self, connections: list[Any]) -> None:
        self.connections = connections
        self.gauge = Gauge()
        self.free = None if getattr(connections[0], "multiplexes", False) else Free(connections)
        self.views: list[Shared] = []

    def view(self, i: int) -> Shared:
        self.views.append(Shared(self, i))
        return self.views[-1]

    def reset(self) -> None:
        """The measured phase begins (no call in flight): what the warm-up counted is dropped."""
        self.gauge.reset()
        for shared in self.views:
            shared.wait = hist.new() if shared.wait is not None else None

    def figures(self) -> dict[str, Any]:
        """The result's keys of sharing: connections, in-flight calls, the waits for a connection."""
        waits = [shared.wait for shared in self.views if shared.wait is not None]
        total = hist.new()
        for wait in waits:
            total.add(wait)
        return {"connections": len(self.connections), **self.gauge.figures(),
                "histogram_conn_wait": hist.encode(total) if waits else None}

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
