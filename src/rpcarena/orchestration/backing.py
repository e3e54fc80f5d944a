"""Backing services some workloads need (a Redis for predictions.*), provided for a whole run.

Each is started once, before the first cell, and stopped at the end. When one
cannot be had here, only the cells that need it are reported as unavailable,
with the reason; the rest of the run goes on. Servers learn each service's URL
from `urls`, passed to them explicitly (never through the environment).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from rpcarena.errors import UnavailableError
from rpcarena.workloads import BackingService, Workload


class Backing:
    """The backing services of one run, their URLs, and why any is missing."""

    def __init__(self, workloads: Iterable[Workload], given: Mapping[str, str | None], host: str,
                 prefix: list[str] | None = None, logs: Path | None = None) -> None:
        self.needs = {need.name: need for workload in workloads for need in workload.needs}
        self.given = given  # the user's own services by name (--redis URL), seeded but never stopped
        self.host = host
        self.prefix = prefix or []  # where the servers run (`ip netns exec NS` across a link): so do these
        self.logs = logs  # the run's log folder, where a service's log stays after the run
        self.urls: dict[str, str] = {}
        self.missing: dict[str, str] = {}
        self.started: list[BackingService] = []
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Backing:
        for name, need in self.needs.items():
            try:
                service = self._stack.enter_context(need.start(self.given.get(name), self.host, self.prefix,
                                                               self.logs))
            except UnavailableError as error:
                self.missing[name] = str(error)
                continue
            self.started.append(service)
            if service.url is not None:
                self.urls[name] = service.url
        return self

    def lost(self) -> str | None:
        """Why a service the servers read died mid-run (its cells cannot be measured), or None."""
        return next((why for why in (s.lost() for s in self.started) if why), None)

    def why_not(self, workload: Workload) -> str | None:
        """Why a workload cannot run here, or None."""
        for need in workload.needs:
            if need.name in self.missing:
                return self.missing[need.name]
        return None

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
