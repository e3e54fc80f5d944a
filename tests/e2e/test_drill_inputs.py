"""The drill's inputs: every command that reads a file refuses a FIFO at once instead of waiting on it
for ever; empty paths and duplicate clients or levels are usage errors (issue 42, "Inputs never block").

Each command runs in a process of its own with a bound: one that blocks in open() fails by the
bound, as the drill's did for ever.
"""

from __future__ import annotations

import os

import pytest

from tests.commands.test_input_checks import _stub_measuring, call, one_line
from tests.conftest import FIXTURE, ROOT, run_cli

BOUND_S = 60
PROTO = ROOT / "examples" / "orders" / "orders.proto"
SAMPLES = ROOT / "examples" / "orders" / "requests.jsonl"
USER_METHOD = ("run", "--proto", str(PROTO), "--method", "orders.Orders/Place", "--contender", "grpc-py")

READERS = {
    "show": ["show", "{fifo}"],
    "report": ["report", "{fifo}", "-o", "{tmp}/r.html"],
    "export": ["export", "{fifo}", "--csv", "{tmp}/c.csv"],
    "compare": ["compare", str(FIXTURE), "{fifo}"],
    "run --resume": ["run", "--resume", "{fifo}"],
    "target --data-file": ["target", "--http", "http://127.0.0.1:9/x", "--data-file", "{fifo}"],
    "target --var csv": ["target", "--http", "http://127.0.0.1:9/{{i}}", "--var", "i=csv:{fifo}:id"],
    "run --data-file": [*USER_METHOD, "--data-file", "{fifo}"],
    "run --reply-file": [*USER_METHOD, "--data-file", str(SAMPLES), "--reply-file", "{fifo}"],
}


@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_is_refused_in_one_line_not_waited_on(reader, tmp_path):
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    argv = [a.replace("{fifo}", str(fifo)).replace("{tmp}", str(tmp_path)) for a in READERS[reader]]
    writes = argv[0] == "target" or (argv[0] == "run" and "--resume" not in argv)
    done = run_cli(*argv, *(["--out", str(tmp_path / "o.json")] if writes else []), timeout=BOUND_S)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "FIFO" in lines[0] and str(fifo) in lines[0], lines


RUN = ["run", "--contender", "tcp-raw", "--workload", "usp.void"]


@pytest.mark.parametrize("argv,needle", [
    (["run", "--resume", ""], "--resume"),  # started the default arena
    ([*RUN, "-c", "1,1"], "given twice"),  # two cells under one key
    ([*RUN, "--client", "py,py"], "given twice"),
    ([*RUN, "--contender", "tcp-raw,tcp-raw"], "given twice"),
    (["show", ""], "''"),
], ids=["resume-empty", "clients-twice", "client-twice", "contender-twice", "show-empty"])
def test_empty_paths_and_duplicates_are_usage_errors(argv, needle, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    monkeypatch.chdir(tmp_path)
    one_line(*call(argv, capsys), needle)
