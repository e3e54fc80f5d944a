"""What a suite's run measured, looked up the way claims ask for it."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from rpcarena.analysis import groups, stats
from rpcarena.analysis.groups import Group, group
from rpcarena.results import Cell, Results

TRIMMED_MEAN = "trimmed_mean"


class Evidence:
    """The measured groups of a run, by (contender, workload, clients), and what is missing.

    Only the cells of one network are looked at: loopback unless `network` says otherwise
    (a predicate on the cell, e.g. `lambda c: c.link is not None`; see `over`)."""

    def __init__(self, results: Results, missing: dict[str, str],
                 network: Callable[[Cell], bool] = lambda cell: cell.setting is None):
        self.results = results
        self.missing = missing
        self.groups: dict[tuple[str, str, int], Group] = {}
        for g in group(c for c in results.cells if network(c)):
            if g.has_samples:
                self.groups.setdefault((g.contender, g.workload, g.clients), g)

    def over(self, network: Callable[[Cell], bool]) -> Evidence:
        """The same run seen through the cells of another network."""
        return Evidence(self.results, self.missing, network)

    def on_link(self) -> Evidence:
        """The same run seen through the cells measured over an emulated link (a part with `link`)."""
        return self.over(lambda cell: cell.link is not None)

    def get(self, contender: str, workload: str, clients: int = 1) -> Group | None:
        return self.groups.get((contender, workload, clients))

    def measured(self, contender: str) -> bool:
        return any(k[0] == contender for k in self.groups)

    def absent(self, contenders: list[str], workloads: list[str] = ()) -> str | None:
        """Why a claim over these systems and workloads cannot be judged, or None."""
        gone = [f"{c} ({self.missing.get(c, 'not measured in this run')})"
                for c in contenders if not self.measured(c)]
        gone += [f"{w} ({self.missing.get(w, 'not measured in this run')})"
                 for w in workloads if not self.resolve([w])]
        return "missing here: " + "; ".join(gone) if gone else None

    def ratio(self, numerator: str, denominator: str, workload: str, statistic: str = "median",
              clients: int = 1) -> stats.Ratio | None:
        """numerator / denominator of a per-trial statistic over trials (`groups.ratio`: latency
        'median', 'p99', 'mean', 'trimmed_mean' (the mean without the calls below p2 and above p98,
        as usp2018 trimmed them), or 'cpu_us_per_call'), or None when either was not measured."""
        a, b = self.get(numerator, workload, clients), self.get(denominator, workload, clients)
        if a is None or b is None:
            return None
        if statistic == TRIMMED_MEAN:
            return groups.ratio(Group(a.cells, trimmed=True), Group(b.cells, trimmed=True), "mean")
        return groups.ratio(a, b, statistic)

    def resolve(self, patterns: list[str] | tuple[str, ...]) -> list[str]:
        """Measured workloads matching ids or patterns ('predictions.*'), in the order asked."""
        seen = list(dict.fromkeys(k[1] for k in self.groups))
        return list(dict.fromkeys(w for p in patterns for w in seen if fnmatch.fnmatchcase(w, p)))

    def levels(self, contender: str, workload: str) -> list[int]:
        return sorted(k[2] for k in self.groups if k[0] == contender and k[1] == workload)
