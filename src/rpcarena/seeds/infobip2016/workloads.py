"""infobip2016: echo a list of N small objects (N = 0, 10, 100)."""

from __future__ import annotations

from rpcarena.workloads import Workload

PREFIX = "infobip"


def _items(n: int) -> list[dict]:
    return [{"id": 10_000 + i, "name": f"item-{i:03d}", "price": 9.75 + i, "active": i % 2 == 0}
            for i in range(n)]


WORKLOADS = tuple(Workload(f"{PREFIX}.items{n}", "EchoItems", f"echo a list of {n} small objects",
                           lambda n=n: [{"items": _items(n)}]) for n in (0, 10, 100))
