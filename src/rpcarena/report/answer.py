"""The answer of a run: per workload (and concurrency, and network), the RPC mechanisms ranked by p50.

The tcp-raw echo is not an RPC mechanism: it is each client language's floor, shown beside a
ranking as its reference with each mechanism's "x floor", never ranked in it (a run of floors
alone ranks them). Mechanisms whose calls moved far fewer bytes than the workload's data
(`stability.moves_no_data`: references, not copies) are ranked apart, never against the others.

Each contender's ratio to the best is taken over trials (`groups.ratio`: one median per
trial, Welch's interval on the logarithms), so "not significant" and "cannot tell" mean
what they mean in `compare`. A percentile is shown only when the calls support it: p99
of fewer than `P99_CALLS` calls rests on fewer than ten of them, and is "n/s".
The terminal, markdown and JSON outputs all read these rankings.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import TypedDict

from rpcarena.analysis import floor, groups, stability, stats
from rpcarena.analysis.groups import Group
from rpcarena.analysis.stability import Diagnosis
from rpcarena.protocol import schema
from rpcarena.results import Cell, Results
from rpcarena.seeds import WORKLOADS

NOT_SUPPORTED = "n/s"
FAILED = "failed"
DIFFERENT_METHODS = "different methods"
P99_CALLS = stability.calls_for(99.0)
MOVED_NO_DATA = "moved no data"
P99_REASON = (f"p99 n/s: fewer than {P99_CALLS:,} calls, so p99 would rest on fewer than "
              f"{stability.TAIL_CALLS} of them; use --calls {P99_CALLS} or more")
# a suite's phases have the calls its seed's design gives them (`suite` has no --calls): no option to advise
P99_REASON_SUITE = (f"p99 n/s: fewer than {P99_CALLS:,} calls, so p99 would rest on fewer than "
                    f"{stability.TAIL_CALLS} of them; the suite's claims read means and medians")


class EntryRow(TypedDict):
    """A ranking's entry as plain data (JSON output); units in the key names."""

    rank: int
    contender: str
    client: str
    trials: int
    calls: int
    p50_us: float | None
    p99_us: float | None
    throughput_per_s: float | None
    errors: int
    ratio_to_best: float | None
    ratio_low: float | None
    ratio_high: float | None
    verdict: str
    x_floor: float | None
    message_p50_us: float | None
    message_p99_us: float | None
    messages_per_s: float | None
    failed: str | None
    warnings: list[dict[str, object]]


class ReferenceRow(TypedDict):
    """A ranking's floor as plain data."""

    contender: str
    client: str
    trials: int
    p50_us: float


class RankingJson(TypedDict):
    """A ranking as plain data: its scope, its floors and its entries in rank order."""

    workload: str
    clients: int
    setting: str | None
    moved_data: bool
    floors: list[ReferenceRow]
    entries: list[EntryRow]


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
    warnings: list[Diagnosis] = field(default_factory=list)
    x_floor: float | None = None  # p50 over the floor of its client's language; None without one
    failed: str | None = None  # why a cell that measured its calls failed (a gate on its errors)
    floor_us: float | None = None  # the p50 of that floor (the least of its trials')

    @property
    def best(self) -> bool:
        return self.ratio is None and self.failed is None

    @property
    def verdict(self) -> str:
        """'best', 'slower', 'not significant', stats.CANNOT_TELL or 'failed'."""
        if self.failed is not None:
            return FAILED
        if self.ratio is None:
            return "best"
        if not self.ratio.judged:
            return stats.CANNOT_TELL
        return "slower" if self.ratio.significant else "not significant"

    def row(self, rank: int) -> EntryRow:
        """This entry as plain data (JSON output); units in the key names."""
        interval = self.ratio.interval if self.ratio else None
        cell = self.group.cells[0]
        return {"rank": rank, "contender": cell.contender, "client": cell.client, "trials": len(self.group.cells),
                "calls": self.group.calls, "p50_us": self.p50_us if self.group.calls else None, "p99_us": self.p99_us,
                "throughput_per_s": self.throughput_per_s, "errors": self.errors,
                "ratio_to_best": self.ratio.estimate if self.ratio else 1.0 if self.best else None,
                "ratio_low": interval.low if interval else None, "ratio_high": interval.high if interval else None,
                "verdict": self.verdict, "x_floor": self.x_floor,
                "message_p50_us": self.group.message_stat("p50_us"),
                "message_p99_us": self.group.message_stat("p99_us"), "messages_per_s": self.group.messages_per_s,
                "failed": self.failed, "warnings": [d.to_json() for d in self.warnings]}


@dataclass(frozen=True)
class Reference:
    """A floor the mechanisms of a ranking are read against, not ranked among them."""

    group: Group
    name: str
    p50_us: float

    def to_json(self) -> ReferenceRow:
        cell = self.group.cells[0]
        return {"contender": cell.contender, "client": cell.client, "trials": len(self.group.cells),
                "p50_us": self.p50_us}


@dataclass(frozen=True)
class Ranking:
    """The contenders of one workload at one concurrency over one network, fastest first; the ones that
    moved no data (`apart`) in a ranking of their own."""

    workload: str
    clients: int
    setting: str | None
    entries: list[Entry]
    floors: list[Reference] = field(default_factory=list)
    apart: bool = False
    suite: bool = False  # a suite's ranking: its phases keep their calls, which no option of `suite` sets

    def title(self) -> str:
        clients = f"{self.clients} client{'s' if self.clients != 1 else ''}"
        return (f"{self.workload}, {clients}" + (f", {self.setting}" if self.setting else "")
                + (f", {MOVED_NO_DATA}" if self.apart else ""))

    def to_json(self) -> RankingJson:
        return {"workload": self.workload, "clients": self.clients, "setting": self.setting,
                "moved_data": not self.apart, "floors": [f.to_json() for f in self.floors],
                "entries": [e.row(i) for i, e in enumerate(self.entries, 1)]}


def ratio_text(r: stats.Ratio | None) -> str:
    """'7.63× [6.74–8.58] slower', '1.02× [0.95–1.10] not significant', '7.63× cannot tell' or 'best':
    the ratio over trials, the one answer to "how sure" (the terminal's, in the HTML summary, its
    tooltips and these tables alike)."""
    if r is None:
        return "best"
    if r.interval is None or not r.judged:
        return f"{r.estimate:.2f}× cannot tell"
    said = "slower" if r.significant else "not significant"
    return f"{r.estimate:.2f}× [{r.interval.low:.2f}–{r.interval.high:.2f}] {said}"


def name(g: Group, alone: bool = True) -> str:
    """The contender, and its client when that is not the contender's own (`groups.own_client`: py-newconn
    is never rest-fastapi's) or when the ranking has the contender driven by several clients."""
    cell = g.cells[0]
    return cell.contender if alone and groups.own_client(cell) else f"{cell.contender}<-{cell.client}"


def _at_rate(entry: Entry, ranked: list[Group]) -> Entry:
    """The entry named with its open-loop rate when the ranking has its contender and client at several
    rates (--find-max's probes): 'grpc-py at 1,200/s', 'grpc-py closed loop'."""
    cell = entry.group.cells[0]
    rates = {g.cells[0].rate_per_s for g in ranked if (g.contender, g.cells[0].client) == (cell.contender, cell.client)}
    if len(rates) < 2:
        return entry
    at = f"at {cell.rate_per_s:,.0f}/s" if cell.rate_per_s else "closed loop"
    return dataclasses.replace(entry, name=f"{entry.name} {at}")


def p50_us(g: Group) -> float:
    """The trials' medians (their geometric mean, what the ratio compares), or the histogram's."""
    return g.across_trials("median") or g.histogram_stat("p50_us") or 0.0


def least_p50_us(g: Group) -> float:
    """A floor's p50: the least of its trials' medians, as `floor.floor_of` takes it (other load only
    ever adds latency to an echo)."""
    return min((v for v in g.per_trial("median") if v > 0), default=0.0) or p50_us(g)


def p99_supported(g: Group) -> bool:
    return stability.supported(g.calls, 99.0)


@dataclass(frozen=True)
class Scope:
    """What every entry of one ranking is read with: the run's CPUs, its document, the comparison's
    floors, and the bytes its workload's calls must move."""

    cpus: int
    results: Results
    floors: list[Group]
    payload_bytes: float
    fewer: dict[int, Group]  # by id of a group: the same at fewer clients with the most calls/s


def _entry(g: Group, best: Group | None, alone: bool, scope: Scope) -> Entry:
    ratio = groups.ratio(g, best, "median") if best is not None and best is not g else None
    failed = next((c.reason or FAILED for c in g.cells if c.status != "ok"), None)
    reference = floor.reference(g, scope.floors, least_p50_us)
    floor_us = least_p50_us(reference) if reference is not None else None
    said = shown_warnings(g, scope.cpus, scope.results, scope.payload_bytes, scope.fewer.get(id(g))) if g.calls else []
    return Entry(g, name(g, alone), p50_us(g), g.histogram_stat("p99_us") if p99_supported(g) else None,
                 g.throughput_per_s, sum(c.error_count for c in g.cells), ratio, said,
                 p50_us(g) / floor_us if floor_us and g.calls else None, failed, floor_us)


def shown_warnings(g: Group, cpus: int, results: Results | None = None, payload_bytes: float = 0.0,
                   fewer: Group | None = None) -> list[Diagnosis]:
    """stability's warnings but the one on unsupported percentiles: the summary shows p50 and p99,
    and a p99 the calls do not support as "n/s" (said once, as P99_REASON). With the document, also
    a trial that read faster than its own floor (`floor.below_floor`); with the workload's payload,
    whether the data moved at all (`stability.moves_no_data`); with the same at fewer clients, whether
    more clients made fewer calls (`stability.falling_throughput`)."""
    found = [d for d in stability.diagnoses(g, cpus) if d.check != "unsupported_percentiles"]
    falling = stability.falling_throughput(g, fewer)
    if falling is not None and not any(d.check == falling.check for d in found):
        found.append(falling)
    below = [(c.trial + 1, text) for c in g.cells
             if results is not None and (text := floor.below_floor(c, results, len(g.cells)))]
    said = [Diagnosis("below_floor", below[0][1], None, (), tuple(t for t, _ in below))] if below else []
    moved = stability.moves_no_data(g, payload_bytes)
    return ([moved] if moved else []) + found + said


def payload_bytes(workload: str) -> float:
    """What a call of the workload must move, request and reply encoded (0 for a workload this
    install does not know, as a document from elsewhere may hold)."""
    known = WORKLOADS.get(workload)
    return known.payload_bytes if known is not None and known.method in schema.methods() else 0.0


def cpus_of(results: Results) -> int:
    env = results.environment
    return len(env.get("cpus_allowed") or []) or env.get("cpus") or 1


def rankings(results: Results, trimmed: bool = False) -> list[Ranking]:
    """Every (workload, concurrency, network) of the results, its contenders ranked by p50. The targets
    of `rpcarena target` are ranked together whatever they call, and the title says when the methods
    differ; a cell that failed after measuring its calls is ranked too, marked failed."""
    found: dict[tuple[str, int, str | None], list[Group]] = {}
    every = groups.group(ranked_cells(results), trimmed) + failed_groups(results, trimmed)
    for g in every:
        found.setdefault((g.workload, g.clients, g.cells[0].setting), []).append(g)
    if results.targets:
        found = across_methods(found)
    fewer = fewer_clients(every)
    out = []
    for (workload, clients, setting), members in found.items():
        moved, apart, floors = sides(workload, members)
        scope = Scope(cpus_of(results), results, floors, payload_bytes(workload), fewer)
        out += [_ranking(workload, clients, setting, chosen, scope, chosen is apart)
                for chosen in (moved, apart) if chosen]
    return [dataclasses.replace(r, suite=True) for r in out] if results.suite else out


def failed_groups(results: Results, trimmed: bool = False) -> list[Group]:
    """The cells that made their calls and then failed (too many failed calls for the gate, or none
    completed): their figures and errors are real, so they are shown, marked failed, after the ranked
    ones, rather than as "not measured"."""
    found: dict[tuple[groups.Key, str | None], list[Cell]] = {}
    for cell in results.cells:
        if shown_failed(cell):
            found.setdefault((groups.key_of(cell), cell.setting), []).append(cell)
    return [Group(sorted(cells, key=lambda c: c.trial), trimmed) for cells in found.values()]


def across_methods(found: dict[tuple[str, int, str | None], list[Group]]) -> dict[tuple[str, int, str | None],
                                                                                   list[Group]]:
    """Targets side by side at each concurrency and network, as the README promises: one ranking per
    (clients, network), named 'different methods: ...' when its targets call different things."""
    merged: dict[tuple[int, str | None], dict[str, list[Group]]] = {}
    for (workload, clients, setting), members in found.items():
        merged.setdefault((clients, setting), {})[workload] = members
    return {(_methods_title({w: [g.contender for g in m] for w, m in by_workload.items()}), clients, setting):
            [g for m in by_workload.values() for g in m] for (clients, setting), by_workload in merged.items()}


def _methods_title(by_workload: dict[str, list[str]]) -> str:
    """The name of targets ranked together: their one workload, or each target with what it calls."""
    if len(by_workload) == 1:
        return next(iter(by_workload))
    called = "; ".join(f"{', '.join(dict.fromkeys(names))} {w}" for w, names in by_workload.items())
    return f"{DIFFERENT_METHODS} ({called}): compare like with like"


def compared_as(results: Results) -> dict[str, str]:
    """For a document of `rpcarena target`, each workload (a target's method or URL) and the name its
    targets are ranked together under (`across_methods`), so that a report compares them as the
    terminal did; empty for any other document, whose workloads are compared each on its own."""
    if not results.targets:
        return {}
    by_workload: dict[str, list[str]] = {}
    for cell in results.cells:
        by_workload.setdefault(cell.workload, []).append(cell.contender)
    title = _methods_title(by_workload)
    return {workload: title for workload in by_workload}


def shown_title(title: str) -> str:
    """A ranking's title for a terminal: a different-methods one with each target's method on a line
    of its own, so that a narrow terminal never breaks a method (`POST /arena/SayHello`) in two."""
    if not title.startswith(f"{DIFFERENT_METHODS} ("):
        return title
    called, _, rest = title[len(DIFFERENT_METHODS) + 2:].partition("): ")
    return f"{DIFFERENT_METHODS}, {rest}:\n" + "\n".join(f"  {one}" for one in called.split("; "))


def fewer_clients(every: list[Group]) -> dict[int, Group]:
    """For each group (by id), the same contender, client, workload and network at fewer clients that
    made the most calls/s, where the run has one."""
    out = {}
    for g in every:
        same = [f for f in every if f.clients < g.clients and f.throughput_per_s
                and (f.contender, f.cells[0].client, f.workload, f.cells[0].setting)
                == (g.contender, g.cells[0].client, g.workload, g.cells[0].setting)]
        if same:
            out[id(g)] = max(same, key=lambda f: f.throughput_per_s or 0.0)
    return out


def sides(workload: str, members: list[Group]) -> tuple[list[Group], list[Group], list[Group]]:
    """(the mechanisms that moved the workload's data, those that moved none, the floors) of one
    comparison: each of the first two is ranked on its own, against the floors."""
    mechanisms, floors = floor.split(members)
    mechanisms += [f for f in floors if not _ok(f)]  # a failed floor divides nothing: shown failed, as others
    floors = [f for f in floors if _ok(f)]
    payload = payload_bytes(workload)
    apart = [g for g in mechanisms if g.calls and stability.moves_no_data(g, payload)]
    return [g for g in mechanisms if g not in apart], apart, floors


def _ranking(workload: str, clients: int, setting: str | None, members: list[Group], scope: Scope,
             apart: bool) -> Ranking:
    """The members by p50, the failed ones after the rest: a failed cell is shown, never ranked."""
    ranked = sorted(members, key=lambda g: (not _ok(g), not g.calls, p50_us(g)))
    ok = [g for g in ranked if _ok(g)]
    best = ok[0] if ok and ok[0].has_samples else None
    driven = Counter(c for c, _ in dict.fromkeys((g.contender, g.cells[0].client) for g in ranked + scope.floors))
    entries = earned([_at_rate(_entry(g, best, driven[g.contender] == 1, scope), ranked) for g in ranked])
    used = {id(r) for g in ranked if (r := floor.reference(g, scope.floors, least_p50_us)) is not None}
    references = [Reference(f, name(f, driven[f.contender] == 1), least_p50_us(f))
                  for f in scope.floors if id(f) in used]
    return Ranking(workload, clients, setting, entries, sorted(references, key=lambda r: r.p50_us), apart)


def earned(entries: list[Entry]) -> list[Entry]:
    """The entries with only the warnings that earn their line in this ranking (`stability.material`):
    a cause large enough to swap an entry with a neighbour or to turn its ratio's verdict."""
    room = stability.margins([e.p50_us for e in entries], [e.ratio for e in entries])
    return [dataclasses.replace(e, warnings=[d for d in e.warnings if stability.material(d, margin)])
            for e, margin in zip(entries, room)]


def _ok(g: Group) -> bool:
    return all(c.status == "ok" for c in g.cells)


def shown_failed(cell: Cell) -> bool:
    """A failed cell whose figures a ranking shows (`failed_groups`): it made calls, verified or failed."""
    return cell.status == "failed" and bool(cell.calls_sent)


def failed(rankings: list[Ranking]) -> list[str]:
    """'flaky<-py: 20 of 2,000 calls failed ...': why each entry marked failed failed, once."""
    return list(dict.fromkeys(f"{e.name}: {e.failed}" for r in rankings for e in r.entries if e.failed))


def not_measured(results: Results) -> list[str]:
    """'rest-jackson: unavailable: no java (usp.int32, usp.void)': each contender's reason once,
    with the workloads it left without numbers."""
    seen: dict[tuple[str, str, str], dict[str, None]] = {}
    for c in results.cells:
        if (c.status != "ok" or not c.calls) and not shown_failed(c):
            seen.setdefault((c.contender, c.status, c.reason or "no calls"), {})[c.workload] = None
    return [f"{contender}: {status}: {reason} ({', '.join(loads)})"
            for (contender, status, reason), loads in seen.items()]


def ranked_cells(results: Results) -> list[Cell]:
    """The cells a ranking reads: all but --find-max's probes, which are steps of one search (`searches`),
    not contenders (its closed-loop capacity cells stay, each contender's own measurement)."""
    if not results.find_max:
        return list(results.cells)
    return [c for c in results.cells if c.rate_per_s is None]
