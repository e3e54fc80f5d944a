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
from collections.abc import Callable
from typing import IO, Any

from rpcarena.analysis import groups, stability
from rpcarena.analysis.stability import Diagnosis
from rpcarena.files import output
from rpcarena.report import answer
from rpcarena.results import Cell, Results

STDOUT = "-"
WARNING_SEPARATOR = "; "


def cell_warnings(cell: Cell, cpus: int) -> list[Diagnosis]:
    """stability's warnings for one measured cell (none for a cell without calls), and whether it
    moved its workload's data."""
    if cell.status != "ok" or not cell.calls:
        return []
    alone = groups.Group([cell])
    moved = stability.moves_no_data(alone, answer.payload_bytes(cell.workload))
    return ([moved] if moved else []) + stability.diagnoses(alone, cpus)


def rows(results: Results) -> list[dict[str, Any]]:
    """Every cell's flat record, with its warnings: each its `kind` (for a program) and `text`."""
    cpus = answer.cpus_of(results)
    return [dict(cell.row(), warnings=[d.to_json() for d in cell_warnings(cell, cpus)]) for cell in results.cells]


def columns(rows: list[dict]) -> list[str]:
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


def write(results: Results, fmt: str, path: str | os.PathLike, option: str = "-o", force: bool = False) -> str:
    """The document in a format, to a file (as every output is written: never over a results document
    without `force`) or to stdout ("-"); what was written, for the user."""
    if str(path) == STDOUT:
        FORMATS[fmt](results, sys.stdout)
        sys.stdout.flush()
        return "stdout"
    with output.writing_text(path, option=option, force=force) as out:
        FORMATS[fmt](results, out)
    return str(path)


def write_csv(results: Results, path: str | os.PathLike) -> str:
    return write(results, "csv", path)


def write_json(results: Results, path: str | os.PathLike) -> str:
    return write(results, "json", path)
