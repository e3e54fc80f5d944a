"""The messages between the orchestrator and a cell's tasks on the nodes.

A task speaks through one Dask Queue per run (`ready` from the server, `warm` from each node's
drivers, `marked` when the server has read its counters), tagged with its cell. The orchestrator
speaks through three Dask Events per cell: `mark` (server: read your counters now), `go` (drivers:
the barrier is open, start the measured phase) and `stop` (server: the cell is over). A task waits
in steps of a second and gives up as soon as its own task is cancelled, which is what happens when
the orchestrator lets go of the cell or goes away (Ctrl-C, kill -9, a lost connection): nothing
outlives its cell on any node.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rpcarena.errors import ArenaError, WorkerError

STEP_S = 1.0  # how long a task blocks in one wait; also how soon it notices it was let go
POLL_S = 0.5  # how often the orchestrator looks at its futures and nodes while it waits
EVENTS = ("mark", "go", "stop")
WANTED_STATES = ("executing", "long-running")


class Cancelled(ArenaError):
    """The cell was stopped, or its orchestrator went away: the task ends quietly."""


def queue_name(run: str) -> str:
    return f"rpcarena-{run}-events"


def event_name(cell: str, event: str) -> str:
    return f"{cell}-{event}"


class NodeSide:
    """A task's end of the channel, on its node."""

    def __init__(self, run: str, cell: str, node: str) -> None:
        from distributed import Event, Queue, get_worker

        self.cell, self.node = cell, node
        self.worker = get_worker()
        self.task = self.worker.get_current_task()
        self.queue = Queue(queue_name(run))
        self.events = {name: Event(event_name(cell, name)) for name in EVENTS}

    def wanted(self) -> bool:
        """Whether the scheduler still wants this task (a local look, no message)."""
        state = self.worker.state.tasks.get(self.task)
        return state is not None and state.state in WANTED_STATES

    def say(self, event: str, **data: Any) -> None:
        self.queue.put(dict(data, event=event, cell=self.cell, node=self.node))

    def wait(self, event: str, timeout_s: float, check: Callable[[], None] = lambda: None) -> None:
        """Until the orchestrator sets `event`; `check` raises when what the task holds has died."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.wanted():
                raise Cancelled(f"cell {self.cell} let go on node {self.node}")
            check()
            if self.events[event].wait(STEP_S):
                return
        raise Cancelled(f"no {event!r} from the orchestrator within {timeout_s:.0f} s on node {self.node}")


class OrchestratorSide:
    """The orchestrator's end: what the nodes said, by event and node; the cell's events."""

    def __init__(self, client: Any, queue: Any, cell: str) -> None:
        from distributed import Event

        self.queue, self.cell = queue, cell
        self.events = {name: Event(event_name(cell, name), client=client) for name in EVENTS}
        self.heard: dict[tuple[str, str], dict[str, Any]] = {}

    def set(self, event: str) -> None:
        self.events[event].set()

    def expect(self, event: str, nodes: list[str], timeout_s: float, watch: Callable[[], None]) -> dict[str, Any]:
        """What each of `nodes` said with `event`; `watch` raises when a task failed or a node left."""
        deadline = time.monotonic() + timeout_s
        while missing := [n for n in nodes if (event, n) not in self.heard]:
            watch()
            if time.monotonic() > deadline:
                raise WorkerError(f"no {event!r} from node(s) {', '.join(missing)} within {timeout_s:.0f} s; "
                                  "raise --cell-timeout, or see the node's worker log")
            self._listen()
        return {n: self.heard[(event, n)] for n in nodes}

    def _listen(self) -> None:
        try:
            message = self.queue.get(timeout=POLL_S)
        except TimeoutError:
            return
        if isinstance(message, dict) and message.get("cell") == self.cell:  # an earlier cell's late word: dropped
            self.heard[(str(message["event"]), str(message["node"]))] = message

    def close(self) -> None:
        """Forget the cell's events on the scheduler (a cleared event nobody waits on is deleted)."""
        for event in self.events.values():
            try:
                event.clear()
            except (OSError, TimeoutError, RuntimeError):
                pass
