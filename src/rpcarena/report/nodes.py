"""Under a cluster run's answer: how much each client node contributed, and which was client-bound."""

from __future__ import annotations

from rpcarena.analysis.nodes import shares
from rpcarena.results import Results


def node_lines(results: Results) -> list[str]:
    """One line per measured cluster cell: each node's calls and share, its drivers' CPU, and
    whether a node's clients (not the target) were the limit."""
    facts = (results.cluster or {}).get("nodes", {})
    lines = []
    for cell in results.cells:
        parts = shares(cell, facts) if cell.status == "ok" else []
        if not parts:
            continue
        each = "; ".join(f"{p.node} {p.calls:,} calls ({p.share:.0%})"
                         + (f", drivers {p.busy:.0%} of {p.cpus} CPU(s)" if p.busy is not None else "")
                         for p in parts)
        bound = [p.node for p in parts if p.client_bound]
        verdict = (f"client-bound: {', '.join(bound)} (add a node or use a native client)" if bound
                   else "no node client-bound")
        lines.append(f"nodes {cell.contender}<-{cell.client} x{cell.clients}: {each}; {verdict}")
    return lines
