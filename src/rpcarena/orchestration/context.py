"""What every cell of a run shares, passed explicitly: placement, logs, backing services, the link.
(What only one kind of cell shares, a cluster's engine, its runner opens: `CellRunner.opened`.)

The context is opened once per run, before the first cell, and closed after
the last (also on an error or Ctrl-C), so a Redis, a network namespace or a
byte counter never outlives the run that made it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rpcarena.config import RunConfig
from rpcarena.network import link, wire
from rpcarena.orchestration import log_folder
from rpcarena.orchestration.backing import Backing
from rpcarena.process.placement import Placement, plan
from rpcarena.record.intervals import LiveInterval
from rpcarena.workloads import Workload

OnInterval = Callable[[LiveInterval], None]  # told each closed interval of the running cell


@dataclass(frozen=True)
class RunContext:
    """A run's shared state, read by every cell runner."""

    config: RunConfig
    placement: Placement
    logs: Path  # this run's log folder; a cell logs into logs/cell-NNNN
    backing: Backing
    link: link.Link | None  # the emulated link the servers are behind, if any
    wire_unavailable: str | None  # why bytes on the wire cannot be counted here, if they cannot
    # told each closed interval of the running cell (the live progress line on a terminal), if anyone
    on_interval: OnInterval | None = None

    @property
    def server_host(self) -> str:
        """Where servers bind: the link's far end, or the configured host."""
        return self.link.server_address if self.link is not None else self.config.host

    @property
    def server_prefix(self) -> list[str]:
        """What a server's argv is run under: `ip netns exec SERVER_NS` across a link."""
        return self.link.server_prefix if self.link is not None else []

    @property
    def client_prefix(self) -> list[str]:
        """What drivers and proxies run under: `ip netns exec CLIENT_NS` across a link."""
        return self.link.client_prefix if self.link is not None else []

    def lost(self) -> str | None:
        """Why a process every cell depends on died (the delay line, a Redis), or None: the cell fails
        at once, naming it, and the run stops (no later cell could be measured). A netns cluster's
        own delay line is watched by its runner (`cluster.cells`), which opens that cluster."""
        return (self.link.lost() if self.link is not None else None) or self.backing.lost()

    def wire_counter(self, port: int | None) -> Any:
        """Kernel byte counters on a server port, or a null context where they cannot be had."""
        if port is None or self.wire_unavailable is not None:  # port None: a server on another host
            return contextlib.nullcontext(None)
        return wire.Counter(port, self.link.netns if self.link else None)


OpenContext = Callable[[RunConfig, list[Workload]], contextlib.AbstractContextManager[RunContext]]


@contextlib.contextmanager
def open_context(config: RunConfig, workloads: list[Workload]) -> Iterator[RunContext]:
    """The run's context; its backing services and link are torn down on every way out."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    logs = log_folder.make(Path(config.out), stamp)
    placement = plan(config.pin)
    # The delay line shares the clients' CPUs: in a ping-pong they wait while it holds packets.
    emulated = link.Link(link.parse(config.link), logs / "link.log", placement.clients) if config.link else None
    with (emulated or contextlib.nullcontext(None)), \
            Backing(workloads, {"redis": config.redis_url}, "127.0.0.1" if emulated else config.host,
                    emulated.server_prefix if emulated else None, logs) as backing:
        yield RunContext(config, placement, logs, backing, emulated, wire.unavailable())
