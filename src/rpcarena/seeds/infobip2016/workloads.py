"""infobip2016: echo a list of N small objects (N = 0, 10, 100)."""

from __future__ import annotations

from functools import partial

from rpcarena.workloads import Message, Workload

PREFIX = "infobip"


def _items(n: int) -> list[Message]:
    return [{"id": 10_000 + i, "name": f"item-{i:03d}", "price": 9.75 + i, "active": i % 2 == 0}
            for i in range(n)]


def _echo(n: int) -> list[Message]:
    return [{"items": _items(n)}]


WORKLOADS = tuple(Workload(f"{PREFIX}.items{n}", "EchoItems", f"echo a list of {n} small objects",
                           partial(_echo, n)) for n in (0, 10, 100))
