"""The workloads: which operation is called, with which deterministic payloads.

A workload is data over one operation of proto/arena.proto. Each seed's workloads
live in `rpcarena/seeds/<seed>/workloads.py`; adding a workload is one `Workload(...)`
in its `WORKLOADS` there, and `rpcarena.seeds` adds them all to the registry, in
the seeds' order. Payloads are canonical dicts (the proto JSON mapping with proto
field names, int64 as numbers); expected responses come from
`rpcarena.protocol.semantics`, or from the workload's own `reference`.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, TypeAlias

from google.protobuf import json_format

from rpcarena.errors import UsageError
from rpcarena.protocol import schema, semantics
from rpcarena.suggest import did_you_mean

# A canonical message: the proto JSON mapping with proto field names, int64 as numbers. Its shape is
# its operation's in proto/arena.proto (or the user's schema), known only at run time.
Message: TypeAlias = dict[str, Any]


class BackingService(Protocol):
    """A service outside the contender that a workload reads (a seeded Redis): a context manager
    that starts it (or only seeds the user's), knows its URL, and stops what it started."""

    url: str | None

    def __enter__(self) -> BackingService: ...

    def lost(self) -> str | None: ...  # why what it started is gone (it died), or None

    def __exit__(self, *exc: object) -> None: ...


@dataclass(frozen=True)
class Need:
    """A backing service by name: servers get its URL as `serve --NAME URL`, users give theirs as --NAME."""

    name: str
    # (user's URL, host, the argv prefix servers run under, the run's log folder): the service, started
    # beside the servers, its log kept with the run's
    start: Callable[[str | None, str, list[str], Path | None], BackingService] = field(compare=False)
    # the service is a file of the run's own (the user's schema, `--schema PATH`): on a cluster its
    # text travels with the server's task, where a Redis must be one the server's node reaches
    document: bool = False


@dataclass(frozen=True)
class Workload:
    """One operation and the requests a client cycles through."""

    id: str
    method: str
    description: str
    make_requests: Callable[[], list[Message]] = field(repr=False, compare=False)
    # or "stream": one message each way per call on a long-lived stream; or a stream a call, one way
    # ("client_stream": a list of requests, one reply; "server_stream": a request, a list of replies)
    mode: str = "unary"
    needs: tuple[Need, ...] = ()  # services the arena must provide, e.g. a seeded Redis
    # the reply to a request when it is not the operation's reference semantics (a seeded store's data)
    reference: Callable[[Message], Message] | None = field(default=None, repr=False, compare=False)

    @property
    def suite(self) -> str:
        return self.id.split(".", 1)[0]

    @cached_property
    def requests(self) -> list[Message]:
        return self.make_requests()

    @cached_property
    def responses(self) -> list[Message]:
        if self.reference is not None:
            return [self.reference(request) for request in self.requests]
        return [semantics.respond(self.method, request) for request in self.requests]

    @cached_property
    def payload_bytes(self) -> float:
        """The protobuf encoding of a request and its reply, averaged over the requests: the data a
        call must move, so a mechanism that moved far less moved references, not the data."""
        method = schema.methods()[self.method]
        sizes = [_encoded(method.request, q) + _encoded(method.response, r)
                 for q, r in zip(self.requests, self.responses, strict=True)]
        return sum(sizes) / len(sizes) if sizes else 0.0


def _encoded(message: str, data: Message | list[Message]) -> int:
    """A message's protobuf encoding's size; a one-way stream's messages, all of them."""
    if isinstance(data, list):
        return sum(_encoded(message, one) for one in data)
    return len(json_format.ParseDict(data, schema.message_class(message)()).SerializeToString())


WORKLOADS: dict[str, Workload] = {}  # the seeds' (`rpcarena.seeds`), then a user's schema's


def add(workload: Workload) -> None:
    if workload.id in WORKLOADS:
        raise ValueError(f"workload {workload.id!r} registered twice")
    WORKLOADS[workload.id] = workload


def register(id: str, method: str, description: str, make_requests: Callable[[], list[Message]],
             mode: str = "unary", needs: tuple[Need, ...] = (),
             reference: Callable[[Message], Message] | None = None) -> None:
    add(Workload(id, method, description, make_requests, mode, needs, reference))


def _unmatched(pattern: str) -> str:
    """Why a pattern chose nothing: a glob that matched nothing, or an unknown id (with the closest)."""
    if any(char in pattern for char in "*?["):
        return f"--workload {pattern!r} matched nothing: run 'rpcarena list' to see the workloads"
    return (f"unknown workload {pattern!r}{did_you_mean(pattern, WORKLOADS)}: run 'rpcarena list' to see "
            "the workloads")


def select(patterns: str | list[str]) -> list[Workload]:
    """Workloads matching comma-separated ids or shell patterns ('usp.*'), in registry order."""
    if isinstance(patterns, str):
        patterns = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen: list[Workload] = []
    for pattern in patterns:
        matched = [w for w in WORKLOADS.values() if fnmatch.fnmatchcase(w.id, pattern)]
        if not matched:
            raise UsageError(_unmatched(pattern))
        chosen.extend(w for w in matched if w not in chosen)
    return chosen
