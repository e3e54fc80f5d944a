"""The floor a cell is reported against: the tcp-raw echo driven by the same client language.

"x floor" says how many times the bare echo a mechanism costs. The echo must be
driven by a client in the same language as the cell's (the Python tcp-raw client
for py, tcp-raw-go's for go, and so on), on the same payload, concurrency and
network; a Rust client against the Python echo would read below 1, a contradiction.
The floor is the least of the echo's measurements in the run (`floor_of`).
With no such floor in the document there is no ratio, never a cross-language one.
"""

from __future__ import annotations

from collections.abc import Callable

from rpcarena import clients
from rpcarena.analysis.groups import Group
from rpcarena.contract import FLOOR_PROTOCOL
from rpcarena.results import Cell, Results

# Across an emulated link both a cell and its floor are mostly the link's round trip, whose delay
# line varies it by a few percent: a cell within this share below its floor contradicts nothing.
LINK_MARGIN = 0.10


def client_language(cell: Cell) -> str:
    """The language of the cell's client, as recorded; read from its id in older documents."""
    return cell.client_language or clients.language_named(cell.client)


def floor_of(cell: Cell, results: Results) -> Cell | None:
    """The tcp-raw cell measured like `cell` by a client of its language with the least p50 of the
    run (over its trials, and the second measurement a one-trial run makes), or None. Other load
    only ever adds latency, so the least of an echo's measurements is the best estimate of what a
    call costs at the least, as TCP takes the least round trip it saw for the path's own."""
    language = client_language(cell)
    floors = [c for c in results.ok_cells() if c.protocol == FLOOR_PROTOCOL and c.calls
              and c.latency.get("p50_us") and c.workload == cell.workload and c.clients == cell.clients
              and c.setting == cell.setting and client_language(c) == language]
    return min(floors, key=lambda c: float(c.latency["p50_us"]), default=None)


def floor_ratio(cell: Cell, results: Results) -> float | None:
    """The cell's p50 over its floor's p50, or None without a same-language floor."""
    return _over(cell, floor_of(cell, results))


def _over(cell: Cell, floor: Cell | None) -> float | None:
    if floor is None or not cell.latency.get("count") or not floor.latency.get("p50_us"):
        return None
    return float(cell.latency["p50_us"]) / float(floor.latency["p50_us"])


def below_floor(cell: Cell, results: Results, trials: int = 1) -> str | None:
    """A cell faster than its own floor is a contradiction: the echo does strictly less work, so the
    floor cell (or this one) was measured under other conditions. Said with the evidence, and
    --repeat advised only to a run of fewer than 3 `trials`."""
    floor = floor_of(cell, results)
    ratio = _over(cell, floor)
    margin = LINK_MARGIN if cell.link else 0.0
    if ratio is None or floor is None or ratio >= 1.0 - margin or cell is floor:
        return None
    fix = "run with --repeat 3 or more and read the medians" if trials < 3 else "check the machine's load"
    return (f"p50 {ratio:.2f}x its floor ({floor.contender}, p50 {floor.latency['p50_us']:.0f} µs): the bare echo "
            f"cannot be slower, so one of the two was disturbed (other load, a slow trial); {fix}")


def is_floor(g: Group) -> bool:
    return g.cells[0].protocol == FLOOR_PROTOCOL


def split(members: list[Group]) -> tuple[list[Group], list[Group]]:
    """(the RPC mechanisms, the floors) of one comparison. A byte echo is not an RPC mechanism: it is
    the reference the mechanisms are read against, never ranked among them; a run of floors alone
    (tcp-raw in several languages) still ranks them, as then they are what was asked about."""
    floors = [g for g in members if is_floor(g)]
    mechanisms = [g for g in members if not is_floor(g)]
    return (mechanisms, floors) if mechanisms else (floors, [])


def reference(g: Group, floors: list[Group], p50_us: Callable[[Group], float]) -> Group | None:
    """The floor a mechanism's group is read against: the least of the floors driven by a client of
    its language, or None."""
    language = client_language(g.cells[0])
    same = [f for f in floors if client_language(f.cells[0]) == language and p50_us(f) > 0]
    return min(same, key=p50_us, default=None)
