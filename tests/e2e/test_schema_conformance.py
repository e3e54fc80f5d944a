"""Schema conformance, measured: the corpus of tests/fixtures/conformance run with `rpcarena run --proto`
on every mechanism of every language that serves a user's schema, each reply judged by the Python
client with the user's schema, each native mechanism by its own client too.

It fails when a native client calls right a reply the Python client saw wrong from the same server
(a silent wrong answer), and when the table it measures differs from docs/schemas.md's (regenerate
it with `python tools/gen_schema_table.py --write` and read the difference). About 20 minutes: a fresh
server per cell, a call a sample, a Rust variant built per schema.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rpcarena import conformance
from rpcarena.errors import UsageError
from rpcarena.userschema.workload import UserWorkload, build

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import gen_schema_table  # noqa: E402  (the tool that writes the doc's table)

CORPUS = gen_schema_table.CORPUS


def documented_table() -> str:
    doc = gen_schema_table.DOC.read_text()
    return doc[doc.index(gen_schema_table.BEGIN) + len(gen_schema_table.BEGIN):doc.index(gen_schema_table.END)].strip()


@pytest.mark.parametrize("case", conformance.corpus(CORPUS), ids=lambda c: c.feature)
def test_every_sample_of_the_corpus_fits_its_schema(case, tmp_path, monkeypatch):
    """A sample that does not fit would make a case fail on every mechanism: caught here, in seconds."""
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path))
    if case.import_path:
        pytest.skip("needs --import-path, checked by the run")
    workload = build(UserWorkload(proto=str(CORPUS / case.schema), method=case.method,
                                  data_file=str(CORPUS / case.data_file), reply="file" if case.reply_file else "echo",
                                  reply_file=str(CORPUS / case.reply_file) if case.reply_file else None))
    assert len(workload.requests) == case.calls(CORPUS)


def test_the_corpus_covers_every_group_of_features():
    features = {c.feature for c in conformance.corpus(CORPUS)}
    for wanted in ("scalars", "floats", "bytes", "enums", "recursion", "maps", "oneofs", "optional", "any",
                   "proto2 group", "proto2 extension", "edition 2023", "imports across roots", "otlp-trace"):
        assert wanted in features


def test_a_native_client_that_calls_right_what_python_saw_wrong_is_silent():
    wrong = conformance.Outcome(conformance.FAILED, "4 wrong_answer of 4 calls: expected {...}", wrong_answers=4)
    found = conformance.verdict([wrong, conformance.Outcome(conformance.OK)], ("py", "rust"))
    assert found.status == conformance.FAILED and found.silent
    assert found.text.startswith("SILENT: the rust client called it right; the Python client: 4 wrong_answer")
    both = conformance.verdict([wrong, wrong], ("py", "rust"))
    assert both.status == conformance.FAILED and not both.silent


def test_a_native_client_is_named_once():
    """A cell skipped for its client says "the rust client: ..." itself; the verdict does not say it twice."""
    ok = conformance.Outcome(conformance.OK)
    own = conformance.Outcome(conformance.UNSUPPORTED, "the rust client: request 2's x.Y.d is NaN")
    found = conformance.verdict([ok, own], ("py", "rust"))
    assert found.text == "the rust client: request 2's x.Y.d is NaN"


def test_a_cell_is_ok_only_with_every_call_right():
    ok = conformance.Outcome(conformance.OK)
    assert conformance.verdict([ok, ok], ("py", "go")).status == conformance.OK
    unsupported = conformance.Outcome(conformance.UNSUPPORTED, "conformance.oneofs.Choice.pick is a oneof: ...")
    found = conformance.verdict([unsupported], ("py",))
    assert (found.status, found.text) == (conformance.UNSUPPORTED, unsupported.text)


def test_the_table_masks_what_varies_between_runs():
    text = ("tagless server did not start (boom) at 127.0.0.1:41234 pid 812; full log: /tmp/x/cell-000.log; "
            "see /root/.cache/rpcarena/build/rust-9b03/schema-1aa4/build.log for POST /pkg.Service/Call")
    assert conformance.stable(text) == ("tagless server did not start (boom) at 127.0.0.1:PORT pid N; "
                                        "see …/build.log for POST /pkg.Service/Call")


@pytest.mark.conformance  # 20 minutes: `make conformance` (CI runs it after `make test`)
def test_the_corpus_runs_true_on_every_mechanism_and_the_doc_says_so(tmp_path):
    chosen = conformance.mechanisms()
    rows = list(conformance.run_corpus(CORPUS, chosen, tmp_path))
    silent = [f"{m} on {c.feature}: {v.text}" for c, verdicts in rows for m, v in verdicts.items() if v.silent]
    assert not silent, "\n".join(silent)
    measured = conformance.table(rows, chosen).strip()
    assert measured == documented_table(), (
        "docs/schemas.md's table is not what the corpus measures: run `python tools/gen_schema_table.py --write`"
        f" and read the difference; measured:\n{measured}")


def test_a_case_with_a_bad_sample_is_refused_before_any_server(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"i32": "not a number"}) + "\n")
    with pytest.raises(UsageError, match="bad.jsonl:1"):
        build(UserWorkload(proto=str(CORPUS / "core.proto"), method="conformance.scalars.Scalars/Echo",
                           data_file=str(bad)))
