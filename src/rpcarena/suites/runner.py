"""Running a suite: what is missing here, one arena per part, one merged results document."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rpcarena import contenders, workloads
from rpcarena.analysis.stats import MIN_TRIALS
from rpcarena.config import CellKey, RunConfig
from rpcarena.errors import UsageError
from rpcarena.results import Results
from rpcarena.suites import quick as quick_cells
from rpcarena.suites.model import Part, Suite

RunArena = Callable[[RunConfig], Results]
Refuse = Callable[[RunConfig], "str | None"]  # why a part cannot run as its seed had it, here, or None
# Calls each client makes at least, so that a phase at 32 clients is not 9 calls a client.
MIN_CALLS_PER_CLIENT, QUICK_MIN_CALLS_PER_CLIENT = 200, 50


def missing_systems(suite: Suite) -> dict[str, str]:
    """Every contender and workload of the suite that cannot run here, with why."""
    missing: dict[str, str] = {}
    for cid in suite.contenders:
        try:
            reason = contenders.get(cid).unavailable()
        except UsageError:
            reason = "not a contender in this rpcarena yet"
        if reason:
            missing[cid] = reason
    for pattern in suite.workloads:  # a suite comes from the seeds, which registered their workloads
        try:
            workloads.select([pattern])
        except UsageError:
            missing[pattern] = "no such workload in this rpcarena yet"
    return missing


def part_config(part: Part, missing: dict[str, str], quick: bool, repeat: int | None, out: Path,
                order_seed: int | None = None, cells: list[CellKey] | None = None) -> RunConfig | None:
    """The run configuration of one part, with only what can run here (and with `cells`, only those of
    them: --quick's, `quick.by_part`); None when nothing can.

    --quick keeps MIN_TRIALS trials (fewer calls, levels and cells, not fewer trials): with fewer, no
    claim could be judged. Its calls are those of the part's --quick levels, whichever cells it keeps."""
    chosen = [c for c in part.contenders if c not in missing]
    loads = [w for w in part.workloads if w not in missing]
    clients = list(part.quick_clients or part.clients) if quick else list(part.clients)
    calls = phase_calls(part, clients, quick)
    if cells is not None:
        cells = [c for c in cells if c[0] in chosen and c[2] in loads and c[3] in clients]
        chosen = [c for c in chosen if any(cell[0] == c for cell in cells)]
        loads = [w for w in loads if any(cell[2] == w for cell in cells)]
        clients = [n for n in clients if any(cell[3] == n for cell in cells)]
    if not chosen or not loads:
        return None
    return RunConfig(contenders=chosen, workloads=loads, clients=clients, calls=calls,
                     warmup_s=part.quick_warmup_s if quick else part.warmup_s,
                     repeat=repeat or (min(part.repeat, MIN_TRIALS) if quick else part.repeat), via=part.via,
                     link=part.link, out=out, order_seed=order_seed, connections=part.connections,
                     client_drivers=list(part.client_drivers) if part.client_drivers else None, cells=cells)


def phase_calls(part: Part, clients: list[int], quick: bool) -> int:
    """The part's calls per cell, raised so that each client of its largest level makes at least
    MIN_CALLS_PER_CLIENT (QUICK_MIN_CALLS_PER_CLIENT with --quick): fewer say little about a client."""
    least = QUICK_MIN_CALLS_PER_CLIENT if quick else MIN_CALLS_PER_CLIENT
    return max(part.quick_calls if quick else part.calls, least * max(clients))


def configs(suite: Suite, quick: bool, repeat: int | None, out: Path, order_seed: int | None = None,
            missing: dict[str, str] | None = None) -> list[tuple[Part, RunConfig | None, str]]:
    """Each part with its configuration, or None and why it is not run: nothing of it can run here,
    or (--quick, `LEFT_OUT`) no claim reads a cell of it."""
    missing = missing_systems(suite) if missing is None else missing
    wanted = quick_cells.by_part(suite) if quick else [None] * len(suite.parts)
    found = []
    for i, (part, cells) in enumerate(zip(suite.parts, wanted)):
        config = None if cells == [] else part_config(part, missing, quick, repeat,
                                                      out.with_name(f".{out.stem}.part{i}.json"), order_seed, cells)
        found.append((part, config, LEFT_OUT if cells == [] else NOTHING_HERE))
    return found


LEFT_OUT = "--quick leaves it out: no claim reads a cell of it"
NOTHING_HERE = "nothing of this part can run here"


def run(suite: Suite, quick: bool, repeat: int | None, out: Path, run_arena: RunArena,
        base: RunConfig | None = None, refuse: Refuse = lambda config: None) -> Results:
    """Run every part that can run here and is not refused (its reason kept as the part's
    `skipped`, which the claims on it name; a part --quick leaves out is kept as `left_out`);
    the merged document is saved after each part.
    Contenders run in an order shuffled per trial from one seed, recorded in the document (`order_seed`)."""
    missing, order_seed = missing_systems(suite), secrets.randbelow(2 ** 31)
    merged = Results(config={"suite": suite.name, "quick": quick, "order_seed": order_seed, "parts": []},
                     suite={"name": suite.name, "quick": quick, "missing": missing})
    for part, config, why in configs(suite, quick, repeat, out, order_seed, missing):
        where = {"link": part.link, "connections": part.connections}  # which claims a skipped part leaves out
        if config is None:
            merged = _with_part(merged, {"title": part.title, "left_out" if why == LEFT_OUT else "skipped": why,
                                         **where})
            continue
        if base is not None:
            config = replace(config, pin=base.pin, host=base.host, timeout_ms=base.timeout_ms)
        why = refuse(config) or ""
        if why:
            merged = _with_part(merged, {"title": part.title, "skipped": why, **where})
            continue
        part_results = run_arena(config)
        merged = _merge(merged, part_results, part.title).saved(out)
        config.out.unlink(missing_ok=True)
    return replace(merged, finished=datetime.now(timezone.utc).isoformat(timespec="seconds")).saved(out)


def _with_part(merged: Results, part: dict[str, Any]) -> Results:
    """The document with one more entry in its configuration's parts."""
    return replace(merged, config=dict(merged.config, parts=[*merged.config["parts"], part]))


def _merge(merged: Results, part: Results, title: str) -> Results:
    return replace(_with_part(merged, dict(part.config, title=title)),
                   environment=merged.environment or part.environment,
                   cells=merged.cells + part.cells, failures=merged.failures + part.failures,
                   placement=merged.placement or part.placement, link=merged.link or part.link,
                   cluster=merged.cluster or part.cluster,  # which network a cluster's cells crossed (suites.setting)
                   wire_unavailable=part.wire_unavailable or merged.wire_unavailable)

