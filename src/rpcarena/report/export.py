"""Flat exports of a results document: one row per cell with every derived statistic and its warnings.

Each format is a writer of a document to a text stream, by name in `FORMATS`, so that
`rpcarena export --format NAME` and `rpcarena show --format NAME` speak one vocabulary and a
new format is one function and one line. "-" as a path is stdout.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from rpcarena.analysis import groups, stability
from rpcarena.analysis.stability import Diagnosis
from rpcarena.files import output
from rpcarena.report import answer, searches
from rpcarena.results import Cell, Results

STDOUT = "-"
WARNING_SEPARATOR = "; "


def cell_warnings(cell: Cell, cpus: int, trials: int = 1) -> list[Diagnosis]:
    """Every check of stability that fired on one measured cell (none for a cell without calls), and
    whether it moved its workload's data: the detail, whether or not it changed the answer (the
    answer's own are in `show --format json`'s rankings); `trials`: of its measurement in the run."""
    if cell.status != "ok" or not cell.calls:
        return []
    alone = groups.Group([cell])
    moved = stability.moves_no_data(alone, answer.payload_bytes(cell.workload))
    return ([moved] if moved else []) + stability.diagnoses(alone, cpus, trials)


def rows(results: Results) -> list[dict[str, Any]]:
    """Every cell's flat record, with its warnings (each its `kind`, for a program, and `text`), and
    for a --find-max document which step of which search it was."""
    cpus = answer.cpus_of(results)
    trials = Counter(groups.key_of(c) for c in results.cells if c.rate_per_s is None or not results.find_max)
    steps = search_steps(results)
    return [dict(cell.row(), **steps.get(id(cell), {}),
                 warnings=[d.to_json() for d in cell_warnings(cell, cpus, trials[groups.key_of(cell)])])
            for cell in results.cells]


def search_steps(results: Results) -> dict[int, dict[str, Any]]:
    """By id of a cell of --find-max: `find_max_step` (0: the closed-loop capacity; then each probe,
    from 1) and `find_max_meets`, whether it met the objective (`slo`, as typed)."""
    out: dict[int, dict[str, Any]] = {}
    for search in results.find_max:
        key = (search["contender"], search["client"], search["workload"], search["clients"])
        cells = [c for c in results.cells if groups.key_of(c) == key]
        slo = searches.slo_text(search)
        for cell in cells:
            if cell.rate_per_s is None:
                out[id(cell)] = {"find_max_step": 0, "find_max_meets": None, "find_max_slo": slo}
        for n, probe in enumerate(search["probes"], 1):  # a cell once: two searches may offer one rate
            probed = next((c for c in cells if c.rate_per_s == probe["rate_per_s"] and id(c) not in out), None)
            if probed is not None:
                out[id(probed)] = {"find_max_step": n, "find_max_meets": bool(probe["meets"]), "find_max_slo": slo}
    return out


def columns(rows: Sequence[Mapping[str, object]]) -> list[str]:
    """Every key of every row, in first-seen order (skipped cells have fewer)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def csv_to(results: Results, out: IO[str]) -> None:
    flat = [dict(r, warnings=WARNING_SEPARATOR.join(w["text"] for w in r["warnings"]),
                 warning_kinds=WARNING_SEPARATOR.join(w["kind"] for w in r["warnings"])) for r in rows(results)]
    writer = csv.DictWriter(out, fieldnames=columns(flat), lineterminator="\n")
    writer.writeheader()
    writer.writerows(flat)


def json_to(results: Results, out: IO[str]) -> None:
    json.dump(rows(results), out, indent=1)
    out.write("\n")


def intervals_to(results: Results, out: IO[str]) -> None:
    """The cells over time, as CSV: a row per interval of each measured cell (`Results.interval_rows`)."""
    table = results.interval_rows()
    writer = csv.DictWriter(out, fieldnames=columns(table) or ["contender"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)


Writer = Callable[[Results, IO[str]], None]
FORMATS: dict[str, Writer] = {"csv": csv_to, "json": json_to, "intervals": intervals_to}


def write(results: Results, fmt: str, path: str | os.PathLike[str], option: str = "-o", force: bool = False) -> str:
    """The document in a format, to a file (as every output is written: never over a results document
    without `force`) or to stdout ("-"); what was written, for the user."""
    if str(path) == STDOUT:
        FORMATS[fmt](results, sys.stdout)
        sys.stdout.flush()
        return "stdout"
    with output.writing_text(path, option=option, force=force) as out:
        FORMATS[fmt](results, out)
    return str(path)


def write_csv(results: Results, path: str | os.PathLike[str]) -> str:
    return write(results, "csv", path)


def write_json(results: Results, path: str | os.PathLike[str]) -> str:
    return write(results, "json", path)
