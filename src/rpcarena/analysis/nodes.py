"""Each client node's part of a cell measured on a cluster: its share of the calls, and whether
it was client-bound (its drivers busy on nearly all the CPUs they could use, as
`stability.client_bottleneck` judges a cell on one machine), so that a user sees which host's
clients ran out first and whether adding one would raise the load.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rpcarena import clients
from rpcarena.analysis.stability import CLIENT_SATURATED
from rpcarena.results import Cell


@dataclass(frozen=True)
class NodeShare:
    """One client node's part of a cell."""

    node: str
    calls: int
    share: float  # of the cell's calls
    busy: float | None  # its drivers' CPU over the CPUs they could use, 0..1; None: not measured
    cpus: int  # the CPUs its drivers could use

    @property
    def client_bound(self) -> bool:
        return self.busy is not None and self.busy > CLIENT_SATURATED


def shares(cell: Cell, facts: Mapping[str, Any]) -> list[NodeShare]:
    """The client nodes of a cluster cell (none for a cell measured on one machine); `facts` is
    `results.cluster["nodes"]`, each node's machine (its CPU count)."""
    nodes = cell.cluster.get("nodes", {}) if cell.cluster else {}
    total = sum(int(nodes[name].get("calls") or 0) for name in cell.cluster.get("client_nodes", [])) if nodes else 0
    return [_share(cell, name, nodes[name], facts.get(name, {}), total)
            for name in (cell.cluster.get("client_nodes", []) if nodes else [])]


def _share(cell: Cell, name: str, node: Mapping[str, Any], machine: Mapping[str, Any], total: int) -> NodeShare:
    calls = int(node.get("calls") or 0)
    cpus = len(node.get("cpus") or []) or int(machine.get("cpus") or 1)
    if clients.is_python(cell.client) and node.get("processes"):
        cpus = min(cpus, int(node["processes"]))  # a Python driver runs on one CPU at a time (the GIL)
    wall = float(node.get("wall_s") or 0.0)
    used = (node.get("cpu_user_s") or 0.0) + (node.get("cpu_sys_s") or 0.0)
    busy = used / (wall * cpus) if wall > 0 and node.get("cpu_user_s") is not None else None
    return NodeShare(name, calls, calls / total if total else 0.0, busy, cpus)
