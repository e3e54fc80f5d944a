"""What a suite's run measured, looked up the way claims ask for it: a system on a workload at a
level in a setting, one value of a statistic per trial."""

from __future__ import annotations

import fnmatch
from collections import defaultdict

from rpcarena.analysis import stability
from rpcarena.analysis.groups import Group, group
from rpcarena.results import Cell, Results
from rpcarena.suites import setting as settings
from rpcarena.suites.setting import Setting

TRIMMED_MEAN = "trimmed_mean"
RSS = "server_peak_rss_bytes"
BYTES = "payload_bytes_per_call"
# The diagnoses that take a cell out of a verdict, with what they are called there.
CLIENT_BOUND, NAGLE, BIMODAL = "client-bound", "Nagle's delayed-ACK stalls", "bimodal"
Key = tuple[str, str, int, tuple[str | None, int | None]]  # system, workload, clients, setting's key


def driven(contender: str, client: str) -> str:
    """How a claim names a contender driven by one client: 'rest-fastapi<-py-newconn'."""
    return f"{contender}{DRIVEN}{client}"


def undriven(system: str) -> tuple[str, str | None]:
    """A system's contender and its client: ('rest-fastapi', 'py-newconn'), or (contender, None) for one
    named alone (its part's own client)."""
    contender, _, client = system.partition(DRIVEN)
    return contender, client or None


DRIVEN = "<-"


class Evidence:
    """The measured groups of a run, by (system, workload, clients, setting): a system is a contender
    (its first client measured: a part's own) or `driven(contender, client)`. Cells that did not end
    ok are kept apart: a failed trial is missing evidence, never a trial."""

    def __init__(self, results: Results, missing: dict[str, str]):
        self.results, self.missing = results, missing
        self.quick = bool((results.suite or {}).get("quick") or results.config.get("quick"))
        cluster = settings.cluster_link(results.cluster)
        self.groups: dict[Key, Group] = {}
        for g in group(results.cells):
            where = settings.of_cell(g.cells[0], cluster)
            self.groups.setdefault((g.contender, g.workload, g.clients, where), g)
            self.groups.setdefault((driven(g.contender, g.key[1]), g.workload, g.clients, where), g)
        self.not_ok: dict[Key, list[Cell]] = defaultdict(list)
        for cell in results.cells:
            if cell.status != "ok":
                where = settings.of_cell(cell, cluster)
                for name in (cell.contender, driven(cell.contender, cell.client)):
                    self.not_ok[(name, cell.workload, cell.clients, where)].append(cell)

    def get(self, system: str, workload: str, clients: int, where: Setting) -> Group | None:
        return self.groups.get((system, workload, clients, where.key()))

    def values(self, system: str, workload: str, clients: int, where: Setting, statistic: str) -> list[float]:
        """One positive value of `statistic` per ok trial: latency 'median', 'p99', 'mean', TRIMMED_MEAN (the
        mean without the calls below p2 and above p98, as usp2018 trimmed them), 'cpu_us_per_call', RSS
        (the server's peak) or BYTES (TCP payload per call)."""
        g = self.get(system, workload, clients, where)
        if g is None:
            return []
        if statistic in (RSS, BYTES):
            found = [getattr(c, statistic) for c in g.cells]
        elif statistic == TRIMMED_MEAN:
            found = Group(g.cells, trimmed=True).per_trial("mean")
        else:
            found = g.per_trial(statistic)
        return [float(v) for v in found if v is not None and v > 0]

    def by_trial(self, system: str, workload: str, clients: int, where: Setting, statistic: str) -> dict[int, float]:
        """`values` keyed by trial (RSS and BYTES only): for a growth between two workloads, trial by trial."""
        g = self.get(system, workload, clients, where)
        return {c.trial: float(v) for c in g.cells if (v := getattr(c, statistic)) is not None} if g else {}

    def invalid(self, system: str, workload: str, clients: int, where: Setting, statistic: str,
                seed_had_nagle: bool = False) -> str | None:
        """Why this cell cannot judge a claim on `statistic`, or None: a trial failed (missing evidence); a
        trial was client-bound with several clients (the client's ceiling, not the server's; one sequential
        client always waits on its own calls), stalled on Nagle's delayed ACKs unless the seed's system did
        too, or had two modes when judged on its median (which then describes neither)."""
        failed = [c for c in self.not_ok.get((system, workload, clients, where.key()), []) if c.status == "failed"]
        if failed:
            return f"trial {', '.join(str(c.trial_number) for c in failed)} of {system} failed (missing evidence)"
        g = self.get(system, workload, clients, where)
        if g is None or statistic in (RSS, BYTES):
            return None
        checks = [(CLIENT_BOUND, stability.client_bottleneck)] if clients > 1 else []
        checks += [] if seed_had_nagle else [(NAGLE, stability.delayed_ack)]
        checks += [(BIMODAL, stability.bimodal)] if statistic == "median" else []
        environment = self.results.environment
        cpus = len(environment.get("cpus_allowed") or []) or environment.get("cpus") or 1
        for name, check in checks:
            fired = [str(c.trial_number) for c in g.cells if check(c, cpus)]
            if fired:
                return f"{name} in trial {', '.join(fired)} of {system}"
        return None

    def absent(self, system: str, workload: str, clients: int, where: Setting) -> str:
        """Why a system's cell in this setting is not here: missing from this rpcarena, not run, unsupported,
        or measured only in another setting (a cell from another link is not evidence for this one)."""
        reason = self.missing.get(undriven(system)[0]) or self._missing_workload(workload)
        if reason:
            return f"missing here ({reason})"
        gone = self.not_ok.get((system, workload, clients, where.key()))
        if gone and all(c.status != "failed" for c in gone):
            return f"{gone[0].status} ({gone[0].reason})"
        skipped = self._skipped(where)
        if skipped:
            return skipped
        elsewhere = sorted({k[3] for k in self.groups if k[:3] == (system, workload, clients)}, key=str)
        if elsewhere:
            return (f"measured in this run only {' and '.join(settings.named(k) for k in elsewhere)}, not "
                    f"{where.name}: a cell of another setting is not comparable")
        return f"not measured in this run ({where.name})"

    def _skipped(self, where: Setting) -> str | None:
        """The parts of this setting the run skipped, and why ('part ... not run: ...'), or None."""
        parts = [p for p in self.results.config.get("parts", []) if p.get("skipped")
                 and Setting(p.get("link"), p.get("connections")).key() == where.key()]
        return "; ".join(f"part '{p['title']}' not run: {p['skipped']}" for p in parts) or None

    def _missing_workload(self, workload: str) -> str | None:
        return next((why for pattern, why in self.missing.items() if fnmatch.fnmatchcase(workload, pattern)), None)
