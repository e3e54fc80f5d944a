"""Flat exports of a results document: one row per cell with every derived statistic."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from rpcarena.results import Results


def columns(rows: list[dict]) -> list[str]:
    """Every key of every row, in first-seen order (skipped cells have fewer)."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def write_csv(results: Results, path: str | os.PathLike) -> Path:
    rows = results.rows()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=columns(rows))
        writer.writeheader()
        writer.writerows(rows)
    return target


def write_json(results: Results, path: str | os.PathLike) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results.rows(), indent=1))
    return target
