"""--find-max in a results document: each search (a contender, client, workload and concurrency, a
search per trial) with the highest rate that met the objective as the user typed it, its closed-loop
capacity, and its probes as the search's steps, never as contenders. `show`, `report` and `export`
read these, so the file says what the search printed.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from rpcarena.results import Cell, Results


@dataclass(frozen=True)
class Step:
    """One probe of a --find-max search: the rate it offered, what it measured, and the verdict."""

    rate_per_s: float
    meets: bool
    p99_us: float | None
    calls_per_s: float | None


@dataclass(frozen=True)
class Search:
    """--find-max for one contender, client, workload and concurrency, over its trials (a search per
    trial): the highest rate that met the objective as typed, the closed-loop capacity, each step."""

    name: str
    workload: str
    clients: int
    slo: str
    found_per_s: list[float]
    capacity_per_s: list[float]
    steps: list[list[Step]]

    @property
    def max_per_s(self) -> float:
        """The search's answer: the median of its trials' maxima (the one maximum of a single search)."""
        ordered = sorted(self.found_per_s)
        return ordered[len(ordered) // 2]

    def said(self) -> str:
        """'grpc-go<-go usp.int32 x1: max 1,641 calls/s meeting p99<5ms (closed-loop capacity 4,386/s;
        3 searches: 548 to 1,641/s)'."""
        runs = len(self.found_per_s)
        stable = (f"{runs} searches: {min(self.found_per_s):,.0f} to {max(self.found_per_s):,.0f}/s" if runs > 1
                  else "one search: --repeat 3 shows how far another lands")
        return (f"{self.name} {self.workload} x{self.clients}: max {self.max_per_s:,.0f} calls/s meeting {self.slo} "
                f"(closed-loop capacity {statistics_median(self.capacity_per_s):,.0f}/s; {stable})")

    def to_json(self) -> dict[str, Any]:
        return {"contender": self.name, "workload": self.workload, "clients": self.clients, "slo": self.slo,
                "max_rate_per_s": self.max_per_s, "max_rate_per_s_by_trial": self.found_per_s,
                "capacity_per_s_by_trial": self.capacity_per_s,
                "steps": [[dataclasses.asdict(step) for step in trial] for trial in self.steps]}


def statistics_median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def searches(results: Results) -> list[Search]:
    """The document's --find-max searches, each contender's trials together, its probes as steps."""
    found: dict[tuple[str, str, str, int], list[dict[str, Any]]] = {}
    for one in results.find_max:
        found.setdefault((one["contender"], one["client"], one["workload"], one["clients"]), []).append(one)
    probes = {(c.contender, c.client, c.workload, c.clients, c.rate_per_s): c for c in results.cells
              if c.rate_per_s is not None}
    return [Search(_searched(contender, client), workload, clients, slo_text(trials[0]),
                   [t["max_rate_per_s"] for t in trials], [t["capacity_per_s"] for t in trials],
                   [[_step(p, probes.get((contender, client, workload, clients, p["rate_per_s"]))) for p in t["probes"]]
                    for t in trials])
            for (contender, client, workload, clients), trials in found.items()]


def _searched(contender: str, client: str) -> str:
    return f"{contender}<-{client}" if client else contender


def _step(probe: dict[str, Any], cell: Cell | None) -> Step:
    measured = cell is not None and cell.status == "ok" and bool(cell.calls)
    return Step(probe["rate_per_s"], bool(probe["meets"]), cell.latency.get("p99_us") if measured and cell else None,
                cell.throughput_per_s if measured and cell else None)


def slo_text(search: dict[str, Any]) -> str:
    """The objective as the user typed it (`slo_typed`, kept by `run` and `target`), or, in a document
    from before, as its terms read best: 'p99<5ms' for 'p99<5000us'."""
    typed = search.get("slo_typed")
    return str(typed) if typed else ",".join(_readable(term) for term in search.get("slo", []))


def _readable(term: str) -> str:
    """'p99<5000us' as 'p99<5ms': the limit in the largest unit that keeps it whole."""
    match = re.fullmatch(r"(.+?)(<=|<)([0-9.]+)us", term)
    if not match:
        return term
    head, us = match.group(1) + match.group(2), float(match.group(3))
    for unit, scale in (("s", 1e6), ("ms", 1e3)):
        if us >= scale and (us / scale).is_integer():
            return f"{head}{us / scale:g}{unit}"
    return f"{head}{us:g}us"
