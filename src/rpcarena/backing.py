"""Backing services some workloads need (a Redis for predictions.*), provided for a whole run.

They are started once, before the first cell that needs them, and stopped at the
end. When one cannot be had here, only the cells that need it are reported as
unavailable, with the reason; the rest of the run goes on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from rpcarena.errors import UnavailableError
from rpcarena.redis_store import RedisStore
from rpcarena.workloads import Workload


class Backing:
    """The backing services of one run, and why any is missing."""

    def __init__(self, workloads: Iterable[Workload], redis_url: str | None, host: str) -> None:
        self.needs = {need for workload in workloads for need in workload.needs}
        self.redis_url = redis_url
        self.host = host
        self.missing: dict[str, str] = {}
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> "Backing":
        if "redis" in self.needs:
            try:
                self._stack.enter_context(RedisStore(self.redis_url, self.host))
            except UnavailableError as error:
                self.missing["redis"] = str(error)
        return self

    def why_not(self, workload: Workload) -> str | None:
        """Why a workload cannot run here, or None."""
        for need in workload.needs:
            if need in self.missing:
                return self.missing[need]
        return None

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
