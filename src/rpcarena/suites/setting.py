"""Where a claim holds: loopback or one emulated link, and how the clients share connections.

A claim is judged only on cells of its own setting. A cell over another link, or across a
cluster's network that is not the claim's link (`--cluster netns:MODEL` emulates MODEL between
the nodes, which then counts as that link), is not evidence for it: the claim is not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rpcarena import cluster_spec
from rpcarena.errors import UsageError
from rpcarena.network import link
from rpcarena.results import Cell

CLUSTER = "the cluster's network"  # a cluster whose network rpcarena does not emulate: no link's


def link_key(name: str | None) -> str | None:
    """A link as the delay line reads it (a preset resolved), so 'lan' and its terms are one link."""
    if not name:
        return None
    try:
        return link.parse(name).spec
    except UsageError:
        return name


@dataclass(frozen=True)
class Setting:
    """Loopback (no link) or an emulated link; `connections`: the clients share that many (None: one each)."""

    link: str | None = None
    connections: int | None = None

    @property
    def place(self) -> str:
        return f"over the {self.link} link" if self.link else "loopback"

    @property
    def sharing(self) -> str:
        if self.connections is None:
            return "one connection each"
        return f"{self.connections} connection{'s' if self.connections != 1 else ''} shared"

    @property
    def name(self) -> str:
        return self.place if self.connections is None else f"{self.place}, {self.sharing}"

    def key(self) -> tuple[str | None, int | None]:
        return link_key(self.link), self.connections


LOOPBACK = Setting()


def cluster_link(cluster: dict[str, Any] | None) -> str | None:
    """The link a run's cluster emulates between its nodes (`netns:MODEL`), or None (a real network)."""
    spec = (cluster or {}).get("spec")
    if not spec:
        return None
    try:
        parsed = cluster_spec.parse(spec)
    except UsageError:
        return None
    return link_key(parsed.link) if parsed.kind == "netns" else None


def of_cell(cell: Cell, cluster: str | None) -> tuple[str | None, int | None]:
    """The setting a measured cell belongs to, as `Setting.key` reads; a cluster's cell crossed the
    cluster's network (`cluster`: its emulated link, if any), never loopback."""
    if cell.cluster:
        return cluster or CLUSTER, cell.connections
    return link_key(cell.link), cell.connections


def named(key: tuple[str | None, int | None]) -> str:
    """A setting's key in words ('loopback', 'over the rtt=10ms link', 'across the cluster's network')."""
    where, connections = key
    text = "loopback" if where is None else f"across {CLUSTER}" if where == CLUSTER else f"over the {where} link"
    return text if connections is None else f"{text}, {connections} connection(s) shared"
