"""What `suite NAME --quick` measures: the cells its claims' rules read (`Suite.cells(quick=True)`: each
judged member at the levels --quick keeps, and each row shown beside them), and nothing else.

Each cell is measured in the first part of the suite that holds it (its setting, contender, client,
workload and level); a part that holds none is left out. The trials are the part's, at most
`stats.MIN_TRIALS` (3): fixed in advance, never more while a verdict is undecided, so that no
stopping rule bends a verdict's error rate (a fixed design's Holm correction holds as it is).
"""

from __future__ import annotations

from rpcarena import contenders
from rpcarena.config import CellKey
from rpcarena.errors import UsageError
from rpcarena.suites.evidence import undriven
from rpcarena.suites.model import Part, Suite
from rpcarena.suites.operands import NeededCell


def by_part(suite: Suite) -> list[list[CellKey]]:
    """Per part of the suite, in order, the cells --quick measures in it (RunConfig.cells)."""
    left = suite.cells(quick=True)
    found = []
    for part in suite.parts:
        mine = [cell for cell in left if holds(part, cell)]
        left = [cell for cell in left if cell not in mine]
        found.append(list(dict.fromkeys(key(cell) for cell in mine)))
    return found


def unheld(suite: Suite) -> list[NeededCell]:
    """The cells some claim reads with --quick that no part of the suite measures (a suite's mistake)."""
    return [cell for cell in suite.cells(quick=True) if not any(holds(p, cell) for p in suite.parts)]


def key(cell: NeededCell) -> CellKey:
    """A cell as RunConfig.cells names it: 'rest-fastapi<-py-newconn' is the contender and its client, a
    contender named alone is driven by its part's first client for it (None)."""
    system, workload, clients, _ = cell
    return (*undriven(system), workload, clients)


def holds(part: Part, cell: NeededCell) -> bool:
    """Whether the part measures the cell with --quick: its setting, contender, client, workload and level."""
    contender, client, workload, clients = key(cell)
    levels = part.quick_clients or part.clients
    return (cell[3].key() == part.setting.key() and contender in part.contenders and workload in part.workloads
            and clients in levels and (client is None or client in _clients(part, contender)))


def _clients(part: Part, contender: str) -> tuple[str, ...]:
    """Who drives the contender in the part: its client drivers, else the contender's own client."""
    if part.client_drivers:
        return part.client_drivers
    try:
        return (contenders.get(contender).default_client(),)
    except UsageError:  # not in this rpcarena: the part leaves it out (runner.missing_systems)
        return ()
