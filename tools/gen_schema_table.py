"""Run the schema conformance corpus on every mechanism that serves a user's schema; print its table,
or write it into docs/schemas.md (--write), where tests/e2e/test_schema_conformance.py checks it.

    python tools/gen_schema_table.py                      # the whole corpus, every mechanism
    python tools/gen_schema_table.py --mechanism grpc-go,grpc-tonic --feature "proto2 extension"
    python tools/gen_schema_table.py --write              # docs/schemas.md's table, regenerated
    python tools/gen_schema_table.py --keep v.json        # the verdicts kept, to render again with --from v.json

It takes minutes: a fresh server per cell, a few calls each (the native workers build one variant
per schema group first, then reuse it). The exit code is 1 when a native client called a reply
right that the Python client saw wrong from the same server (a silent wrong answer).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

from rpcarena import conformance
from rpcarena.cli import stop_signals
from rpcarena.errors import Stop
from rpcarena.process import leftovers

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "conformance"
DOC = ROOT / "docs" / "schemas.md"
Row = tuple[conformance.Case, dict[str, conformance.Verdict]]
BEGIN, END = "<!-- conformance table: tools/gen_schema_table.py --write -->", "<!-- end of the conformance table -->"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mechanism", help="comma-separated mechanism ids (default: every one that serves a schema)")
    p.add_argument("--feature", action="append", help="a case of the corpus by its feature name (repeatable)")
    p.add_argument("--write", action="store_true", help=f"write the table into {DOC.relative_to(ROOT)}")
    p.add_argument("--keep", metavar="FILE", help="also keep every verdict in FILE (JSON), to render again")
    p.add_argument("--from", dest="source", metavar="FILE", help="render the verdicts a --keep FILE holds, "
                                                                  "measuring nothing")
    args = p.parse_args()
    chosen = conformance.mechanisms()
    if args.mechanism:
        wanted = args.mechanism.split(",")
        chosen = [m for m in chosen if m.id in wanted]
    rows = kept(Path(args.source), chosen) if args.source else measured(chosen, set(args.feature or []) or None)
    if args.keep:
        Path(args.keep).write_text(json.dumps([{"feature": c.feature, "verdicts": {m: dataclasses.asdict(v)
                                                for m, v in verdicts.items()}} for c, verdicts in rows], indent=1))
    text = conformance.table(rows, chosen)
    print(text)
    if args.write:
        write(text)
    silent = [(c.feature, m) for c, verdicts in rows for m, v in verdicts.items() if v.silent]
    for feature, mechanism in silent:
        print(f"SILENT wrong answer: {mechanism} on {feature}", file=sys.stderr)
    return 1 if silent else 0


def measured(chosen: list[conformance.Mechanism], features: set[str] | None) -> list[Row]:
    started, rows = time.monotonic(), []
    # named as every folder rpcarena makes (its pid in it), so a killed tool's folder is swept
    with tempfile.TemporaryDirectory(prefix=leftovers.name("folder", "conformance", "")) as scratch:
        for case, verdicts in conformance.run_corpus(CORPUS, chosen, Path(scratch), features):
            rows.append((case, verdicts))
            shown = ", ".join(f"{m}: {v.mark}" for m, v in verdicts.items())
            print(f"{case.feature}: {shown}", file=sys.stderr, flush=True)
    print(f"{len(rows)} cases x {len(chosen)} mechanisms in {time.monotonic() - started:.0f}s", file=sys.stderr)
    return rows


def kept(source: Path, chosen: list[conformance.Mechanism]) -> list[Row]:
    """The rows a --keep file holds, for the mechanisms chosen."""
    cases = {c.feature: c for c in conformance.corpus(CORPUS)}
    return [(cases[row["feature"]], {m.id: conformance.Verdict(**row["verdicts"][m.id]) for m in chosen})
            for row in json.loads(source.read_text())]


def write(text: str) -> None:
    """The table between the doc's markers, the rest of the doc as it is."""
    doc = DOC.read_text()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    DOC.write_text(doc[:start] + "\n\n" + text + "\n" + doc[end:])


if __name__ == "__main__":
    try:
        with stop_signals():  # SIGTERM and SIGHUP end it as Ctrl-C does: its scratch folder removed
            sys.exit(main())
    except Stop as stop:
        sys.exit(f"stopped by signal {stop}: nothing written")
