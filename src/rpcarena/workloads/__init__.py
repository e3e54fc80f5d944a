"""The workloads: which operation is called, with which deterministic payloads.

A workload is data over one operation of proto/arena.proto. Each seed's workloads
live in one module of this package; adding a workload is one `register(...)`
call there. Payloads are canonical dicts (the proto JSON mapping with proto field
names, int64 as numbers); expected responses come from `rpcarena.methods`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from rpcarena import methods
from rpcarena.errors import UsageError


@dataclass(frozen=True)
class Workload:
    """One operation and the requests a client cycles through."""

    id: str
    method: str
    description: str
    make_requests: Callable[[], list[dict]] = field(repr=False, compare=False)
    mode: str = "unary"  # or "stream": one message each way per call on a long-lived stream
    needs: tuple[str, ...] = ()  # backing services the arena must provide, e.g. ("redis",)

    @property
    def suite(self) -> str:
        return self.id.split(".", 1)[0]

    @cached_property
    def requests(self) -> list[dict]:
        return self.make_requests()

    @cached_property
    def responses(self) -> list[dict]:
        return [methods.respond(self.method, request) for request in self.requests]


WORKLOADS: dict[str, Workload] = {}


def register(id: str, method: str, description: str, make_requests: Callable[[], list[dict]],
             mode: str = "unary", needs: tuple[str, ...] = ()) -> None:
    if id in WORKLOADS:
        raise ValueError(f"workload {id!r} registered twice")
    WORKLOADS[id] = Workload(id, method, description, make_requests, mode, needs)


def select(patterns: str | list[str]) -> list[Workload]:
    """Workloads matching comma-separated ids or shell patterns ('usp.*'), in registry order."""
    if isinstance(patterns, str):
        patterns = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen: list[Workload] = []
    for pattern in patterns:
        matched = [w for w in WORKLOADS.values() if fnmatch.fnmatchcase(w.id, pattern)]
        if not matched:
            raise UsageError(f"unknown workload {pattern!r}: run 'rpcarena list' to see the workloads")
        chosen.extend(w for w in matched if w not in chosen)
    return chosen


def _load_suites() -> None:
    # The order here is the order of 'rpcarena list' and of the default arena.
    import rpcarena.workloads.usp2018  # noqa: F401
    import rpcarena.workloads.hprpc2016  # noqa: F401
    import rpcarena.workloads.cs6650  # noqa: F401
    import rpcarena.workloads.infobip2016  # noqa: F401
    import rpcarena.workloads.predictions  # noqa: F401


_load_suites()
