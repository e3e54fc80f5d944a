"""The answer of a run: per workload (and concurrency, and network), the contenders ranked by p50.

Each contender's ratio to the best is taken over trials (`groups.ratio`: one median per
trial, Welch's interval on the logarithms), so "not significant" and "cannot tell" mean
what they mean in `compare`. A percentile is shown only when the calls support it: p99
of fewer than `P99_CALLS` calls rests on fewer than ten of them, and is "n/s".
The terminal, markdown and JSON outputs all read these rankings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rpcarena.analysis import floor, groups, stability, stats
from rpcarena.analysis.groups import Group
from rpcarena.results import Results

NOT_SUPPORTED = "n/s"
P99_CALLS = stability.calls_for(99.0)
P99_REASON = (f"p99 n/s: fewer than {P99_CALLS:,} calls, so p99 would rest on fewer than "
              f"{stability.TAIL_CALLS} of them; use --calls {P99_CALLS} or more")


@dataclass(frozen=True)
class Entry:
    """One contender's place in one ranking."""

    group: Group
    name: str
    p50_us: float
    p99_us: float | None  # None: not supported by the calls
    throughput_per_s: float | None
    errors: int
    ratio: stats.Ratio | None  # to the best; None for the best itself
    warnings: list[str] = field(default_factory=list)

    @property
    def best(self) -> bool:
        return self.ratio is None

    @property
    def verdict(self) -> str:
        """'best', 'slower', 'not significant' or stats.CANNOT_TELL."""
        if self.ratio is None:
            return "best"
        if not self.ratio.judged:
            return stats.CANNOT_TELL
        return "slower" if self.ratio.significant else "not significant"

    def row(self, rank: int) -> dict:
        """This entry as plain data (JSON output); units in the key names."""
        interval = self.ratio.interval if self.ratio else None
        cell = self.group.cells[0]
        return {"rank": rank, "contender": cell.contender, "client": cell.client, "trials": len(self.group.cells),
                "calls": self.group.calls, "p50_us": self.p50_us, "p99_us": self.p99_us,
                "throughput_per_s": self.throughput_per_s, "errors": self.errors,
                "ratio_to_best": self.ratio.estimate if self.ratio else 1.0,
                "ratio_low": interval.low if interval else None, "ratio_high": interval.high if interval else None,
                "verdict": self.verdict, "warnings": self.warnings}


@dataclass(frozen=True)
class Ranking:
    """The contenders of one workload at one concurrency over one network, fastest first."""

    workload: str
    clients: int
    setting: str | None
    entries: list[Entry]

    def title(self) -> str:
        clients = f"{self.clients} client{'s' if self.clients != 1 else ''}"
        return f"{self.workload}, {clients}" + (f", {self.setting}" if self.setting else "")

    def to_json(self) -> dict:
        return {"workload": self.workload, "clients": self.clients, "setting": self.setting,
                "entries": [e.row(i) for i, e in enumerate(self.entries, 1)]}


def name(g: Group, alone: bool = True) -> str:
    """The contender, and its client when that is not of the contender's own language (py-tuple is
    Python's) or when the ranking has the contender driven by several clients."""
    cell = g.cells[0]
    family = cell.client.split("-")[0].replace("py", "python")
    own = alone and (cell.client in ("", cell.language) or family == cell.language)
    return cell.contender if own else f"{cell.contender}<-{cell.client}"


def p50_us(g: Group) -> float:
    """The trials' medians (their geometric mean, what the ratio compares), or the histogram's."""
    return g.across_trials("median") or g.histogram_stat("p50_us") or 0.0


def p99_supported(g: Group) -> bool:
    return stability.supported(g.calls, 99.0)


def _entry(g: Group, best: Group | None, cpus: int, alone: bool, results: Results) -> Entry:
    ratio = groups.ratio(g, best, "median") if best is not None and best is not g else None
    return Entry(g, name(g, alone), p50_us(g), g.histogram_stat("p99_us") if p99_supported(g) else None,
                 g.throughput_per_s, sum(c.error_count for c in g.cells), ratio, shown_warnings(g, cpus, results))


def shown_warnings(g: Group, cpus: int, results: Results | None = None) -> list[str]:
    """stability's warnings but the one on unsupported percentiles: the summary shows p50 and p99,
    and a p99 the calls do not support as "n/s" (said once, as P99_REASON). With the document, also
    a trial that read faster than its own floor (`floor.below_floor`)."""
    found = [d.text for d in stability.diagnoses(g, cpus) if d.check != "unsupported_percentiles"]
    below = [text for c in g.cells if results is not None and (text := floor.below_floor(c, results))]
    return found + below[:1]


def cpus_of(results: Results) -> int:
    env = results.environment
    return len(env.get("cpus_allowed") or []) or env.get("cpus") or 1


def rankings(results: Results, trimmed: bool = False) -> list[Ranking]:
    """Every (workload, concurrency, network) of the results, its contenders ranked by p50."""
    cpus = cpus_of(results)
    found: dict[tuple[str, int, str | None], list[Group]] = {}
    for g in groups.group(results.cells, trimmed):
        found.setdefault((g.workload, g.clients, g.cells[0].setting), []).append(g)
    out = []
    for (workload, clients, setting), members in found.items():
        ranked = sorted(members, key=p50_us)
        best = ranked[0] if ranked[0].has_samples else None
        driven = Counter(g.contender for g in ranked)
        out.append(Ranking(workload, clients, setting, [_entry(g, best, cpus, driven[g.contender] == 1, results)
                                                        for g in ranked]))
    return out


def not_measured(results: Results) -> list[str]:
    """'rest-jackson: unavailable: no java (usp.int32, usp.void)': each contender's reason once,
    with the workloads it left without numbers."""
    seen: dict[tuple[str, str, str], dict[str, None]] = {}
    for c in results.cells:
        if c.status != "ok" or not c.calls:
            seen.setdefault((c.contender, c.status, c.reason or "no calls"), {})[c.workload] = None
    return [f"{contender}: {status}: {reason} ({', '.join(loads)})"
            for (contender, status, reason), loads in seen.items()]
