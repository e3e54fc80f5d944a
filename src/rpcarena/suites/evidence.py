"""What a suite's run measured, looked up the way claims ask for it."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from functools import cached_property

from rpcarena.analysis import groups, stability, stats
from rpcarena.analysis.groups import Group, group
from rpcarena.results import Cell, Results

TRIMMED_MEAN = "trimmed_mean"
# The diagnoses that take a cell out of a verdict, with what they are called there.
CLIENT_BOUND, NAGLE, BIMODAL = "client-bound", "Nagle's delayed-ACK stalls", "bimodal"


def driven(contender: str, client: str) -> str:
    """How a claim names a contender driven by one client: 'rest-fastapi<-py-newconn'."""
    return f"{contender}<-{client}"


class Evidence:
    """The measured groups of a run, by (contender, workload, clients), and what is missing. A
    contender is also found by `driven(contender, client)`, for claims on one client of several.

    Only the cells of one network are looked at: loopback unless `network` says otherwise
    (a predicate on the cell, e.g. `lambda c: c.link is not None`; see `over`)."""

    def __init__(self, results: Results, missing: dict[str, str],
                 network: Callable[[Cell], bool] = lambda cell: cell.setting is None):
        self.results = results
        self.missing = missing
        self.groups: dict[tuple[str, str, int], Group] = {}
        for g in group(c for c in results.cells if network(c)):
            if g.has_samples:  # a contender's name alone: its first client measured (a part's own)
                self.groups.setdefault((g.contender, g.workload, g.clients), g)
                self.groups.setdefault((driven(g.contender, g.key[1]), g.workload, g.clients), g)

    def over(self, network: Callable[[Cell], bool]) -> Evidence:
        """The same run seen through the cells of another network."""
        return Evidence(self.results, self.missing, network)

    def on_link(self) -> Evidence:
        """The same run seen through the cells measured over an emulated link (a part with `link`),
        or across a cluster's network (`suite --cluster`: every part's cells cross it)."""
        return self.over(lambda cell: cell.link is not None or bool(cell.cluster))

    def get(self, contender: str, workload: str, clients: int = 1) -> Group | None:
        return self.groups.get((contender, workload, clients))

    def measured(self, contender: str) -> bool:
        return any(k[0] == contender for k in self.groups)

    def absent(self, contenders: list[str], workloads: list[str] = ()) -> str | None:
        """Why a claim over these systems and workloads cannot be judged, or None: missing here, or
        measured only on another network than the claim's (a suite run on a cluster has no loopback)."""
        gone = [f"{c} ({self.missing.get(c) or self._elsewhere(c, 0)})"
                for c in contenders if not self.measured(c)]
        gone += [f"{w} ({self.missing.get(w) or self._elsewhere(w, 1)})"
                 for w in workloads if not self.resolve([w])]
        skipped = [f"part '{p['title']}' not run: {p['skipped']}"
                   for p in self.results.config.get("parts", []) if p.get("skipped")]
        return "missing here: " + "; ".join(gone + skipped) if gone else None

    @cached_property
    def _everywhere(self) -> Evidence:
        """The same run seen through every cell, whatever its network (grouped once, when asked)."""
        return Evidence(self.results, self.missing, lambda cell: True)

    def _elsewhere(self, name: str, position: int) -> str:
        """'measured in this run only across the cluster's nodes', or 'not measured in this run'."""
        cells = [c for key, g in self._everywhere.groups.items()
                 if fnmatch.fnmatchcase(key[position], name) for c in g.cells]
        if not cells:
            return "not measured in this run"
        if all(c.cluster for c in cells):
            return "measured in this run only across the cluster's nodes: loopback needs a run without --cluster"
        where = sorted({c.setting or "loopback" for c in cells})
        return f"measured in this run only in another setting ({', '.join(where)})"

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

    def invalid(self, contender: str, workload: str, clients: int, statistic: str,
                seed_had_nagle: bool = False) -> str | None:
        """Why this cell cannot judge a claim on `statistic`, or None: a trial was client-bound with
        several clients (the client's ceiling, not the server's; one sequential client always waits
        on its own calls), stalled on Nagle's delayed ACKs unless the seed's system did too, or had
        two modes when judged on its median (which then describes neither)."""
        g = self.get(contender, workload, clients)
        if g is None:
            return None
        checks = [(CLIENT_BOUND, stability.client_bottleneck)] if clients > 1 else []
        checks += [] if seed_had_nagle else [(NAGLE, stability.delayed_ack)]
        checks += [(BIMODAL, stability.bimodal)] if statistic == "median" else []
        cpus = len(self.results.environment.get("cpus_allowed") or []) or self.results.environment.get("cpus") or 1
        for name, check in checks:
            fired = [str(c.trial) for c in g.cells if check(c, cpus)]
            if fired:
                return f"{name} in trial {', '.join(fired)} of {contender}"
        return None
