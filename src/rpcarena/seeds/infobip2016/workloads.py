"""infobip2016: echo a list of N small objects (N = 0, 10, 100)."""

from __future__ import annotations

from rpcarena.workloads import register

PREFIX = "infobip"


def _items(n: int) -> list[dict]:
    return [{"id": 10_000 + i, "name": f"item-{i:03d}", "price": 9.75 + i, "active": i % 2 == 0}
            for i in range(n)]


for _n in (0, 10, 100):
    register(f"{PREFIX}.items{_n}", "EchoItems", f"echo a list of {_n} small objects",
             lambda n=_n: [{"items": _items(n)}])
