"""Saving that does not grow: the document whole at a run's ends, each cell between one journal line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from rpcarena.errors import UsageError
from rpcarena.files import journal
from rpcarena.results import Cell, Results, ResultsWriter, load


def _cell(trial: int) -> Cell:
    return Cell(contender="tcp-raw", client="py", workload="usp.void", method="EchoVoid", clients=1, trial=trial)


def _journaled(out, *trials: int) -> ResultsWriter:
    """A document saved whole at `out`, then a cell of each trial added (into its journal)."""
    doc = ResultsWriter(Results())
    doc.save(out)
    for trial in trials:
        doc.add(_cell(trial))
    return doc


def test_cells_go_to_the_journal_and_the_next_whole_save_folds_it_in(tmp_path):
    out = tmp_path / "r.json"
    doc = ResultsWriter(Results())
    doc.save(out)
    doc.add(_cell(0))
    doc.add(_cell(1), "tcp-raw x1: the server died")
    assert json.loads(out.read_text())["cells"] == []  # the document itself is not rewritten per cell
    assert len(journal.path_of(out).read_text().splitlines()) == 3  # its header, then a line per cell
    read = load(out)
    assert [c.trial for c in read.cells] == [0, 1] and read.failures == ["tcp-raw x1: the server died"]
    doc.save()
    assert not journal.path_of(out).exists() and [c.trial for c in load(out).cells] == [0, 1]


def test_the_cell_in_flight_is_all_a_cut_line_loses(tmp_path):
    out = tmp_path / "r.json"
    _journaled(out, 0).close_journal()
    with journal.path_of(out).open("ab") as cut:
        cut.write(json.dumps({"cell": _cell(1).to_json()}).encode()[:100])
    assert [c.trial for c in load(out).cells] == [0]


def test_a_journal_left_beside_a_later_whole_save_is_passed_over(tmp_path):
    out = tmp_path / "r.json"
    doc = _journaled(out, 0)
    left = journal.path_of(out).read_bytes()
    doc.save()  # holds cell 0 now; a crash before the journal's removal would leave it beside
    journal.path_of(out).write_bytes(left)
    assert [c.trial for c in load(out).cells] == [0]


def test_a_damaged_journal_cell_is_one_line(tmp_path):
    out = tmp_path / "r.json"
    _journaled(out, 0).close_journal()
    with journal.path_of(out).open("a") as bad:
        bad.write(json.dumps({"cell": {"contender": "x"}}) + "\n")
    with pytest.raises(UsageError, match="damaged"):
        load(out)


APPENDER = """\
import sys
from rpcarena.results import Cell, ResultsWriter, Results
doc = ResultsWriter(Results())
doc.save(sys.argv[1])
for trial in range(10**6):
    doc.add(Cell(contender="tcp-raw", client="py", workload="usp.void", method="EchoVoid", clients=1, trial=trial))
    print(trial, flush=True)
"""


def test_kill_9_while_appending_keeps_every_cell_said_to_be_saved(tmp_path):
    out = tmp_path / "r.json"
    writer = subprocess.Popen([sys.executable, "-c", APPENDER, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        said = [writer.stdout.readline() for _ in range(50)]
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait()
    trials = [c.trial for c in load(out).cells]
    assert trials == list(range(len(trials))) and len(trials) >= len(said)


def test_saving_costs_a_line_per_cell_not_the_document(tmp_path, monkeypatch):
    """The bytes written per cell stay those of the cell, however many came before (no duration asserted)."""
    out = tmp_path / "r.json"
    doc = ResultsWriter(Results())
    doc.save(out)
    written: list[int] = []
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: written.append(len(data)) or real(fd, data))
    for trial in range(200):
        doc.add(_cell(trial))
    assert max(written[1:]) < 2 * min(written[1:])  # the first write is the journal's header


def test_a_link_planted_at_the_journal_is_not_followed(tmp_path):
    out = tmp_path / "r.json"
    victim = tmp_path / "victim"
    victim.write_text("mine")
    journal.path_of(out).symlink_to(victim)
    doc = ResultsWriter(Results())
    doc.save(out)  # the whole save removes the link (the name, never the file it points at)
    doc.add(_cell(0))
    assert victim.read_text() == "mine" and not journal.path_of(out).is_symlink()
