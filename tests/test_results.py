"""The results file: written durably, never overwritten silently, and resumable after an interruption."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from rpcarena.errors import ArenaError
from rpcarena.results import Cell, Results, load
from tests.commands.test_input_checks import _stub_measuring, call, one_line
from tests.conftest import FIXTURE, ROOT, cli

# the file is tested, not the measurement: made-up cells (a real run resumes in tests/e2e/test_fault_drill.py)
TINY = ("run", "--debug-mode", "--contender", "tcp-raw", "--workload", "usp.void,usp.int32", "--calls", "5",
        "--warmup", "0")


def _cell() -> Cell:
    return Cell(contender="tcp-raw", client="py", workload="usp.void", method="EchoVoid", clients=1)


def test_save_fsyncs_the_file_and_its_folder(tmp_path, monkeypatch):
    synced: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)
    monkeypatch.setattr(os, "fsync", spy)
    Results(cells=[_cell()]).save(tmp_path / "r.json")
    assert str(tmp_path) in synced
    assert any(Path(s).parent == tmp_path and Path(s).name.startswith(".r.json") for s in synced), synced


def test_save_leaves_the_umask_alone_and_honours_it(tmp_path, monkeypatch):
    mask = os.umask(0o027)
    try:
        monkeypatch.setattr(os, "umask", lambda *_: pytest.fail("save changed the process-wide umask"))
        Results().save(tmp_path / "r.json")
    finally:
        monkeypatch.undo()
        os.umask(mask)
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o640


def test_a_failed_save_removes_its_temp_file_and_says_why(tmp_path, monkeypatch):
    (tmp_path / "r.json").write_text("the previous version")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ArenaError) as caught:
        Results(cells=[_cell()]).save(tmp_path / "r.json")
    assert "No space left" in str(caught.value) and "\n" not in str(caught.value)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert (tmp_path / "r.json").read_text() == "the previous version"


def test_an_existing_results_file_is_never_overwritten_silently(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("kept")
    done = cli(*TINY, "--out", str(out))
    assert done.returncode == 2 and out.read_text() == "kept"
    (line,) = done.stderr.strip().splitlines()
    assert "--force" in line and f"--resume {out}" in line
    done = cli(*TINY, "--out", str(out), "--force")
    assert done.returncode == 0, done.stderr
    assert len(load(out).cells) == 2


def test_make_arena_overwrites_its_file_on_purpose():
    (line,) = [line for line in (ROOT / "Makefile").read_text().splitlines() if "rpcarena run" in line]
    assert "--force" in line and "results/arena.json" in line


def test_resume_measures_only_the_missing_cells(tmp_path):
    out = tmp_path / "r.json"
    done = cli(*TINY, "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    first = doc["cells"][0]
    doc["cells"], doc["finished"], doc["interrupted"] = [first], None, "Ctrl-C"
    out.write_text(json.dumps(doc))

    other = cli("run", "--debug-mode", "--resume", str(out), "--calls", "6", "--clients", "1,2")
    assert other.returncode == 2, other.stderr
    (line,) = other.stderr.strip().splitlines()
    assert "calls 5 -> 6" in line and "clients [1] -> [1, 2]" in line
    assert json.loads(out.read_text()) == doc  # refused: untouched

    done = cli("run", "--debug-mode", "--resume", str(out), "--calls", "5")  # the same value is the same
    assert done.returncode == 0, done.stderr
    resumed = load(out)
    assert [c.workload for c in resumed.cells] == ["usp.void", "usp.int32"]
    assert resumed.cells[0].to_json() == first  # kept as it was, not measured again
    assert resumed.interrupted is None and resumed.finished is not None and len(resumed.resumed) == 1

    again = cli("run", "--debug-mode", "--resume", str(out))
    assert again.returncode == 0 and "nothing to measure" in again.stdout, again.stderr
    assert len(load(out).cells) == 2


def test_resume_measures_failed_cells_again(tmp_path):
    out = tmp_path / "r.json"
    done = cli(*TINY, "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    doc["cells"][1].update(status="failed", reason="server died (the drill's kill -9)", calls=0)
    doc["failures"] = ["tcp-raw<-py usp.int32 x1: server died (the drill's kill -9)"]
    out.write_text(json.dumps(doc))

    done = cli("run", "--debug-mode", "--resume", str(out))
    assert done.returncode == 0, done.stderr
    resumed = load(out)
    assert [(c.workload, c.status) for c in resumed.cells] == [("usp.void", "ok"), ("usp.int32", "ok")]
    assert resumed.cells[1].calls == 5 and resumed.failures == []
    (note,) = resumed.resumed
    assert note["cells_missing"] == 1 and note["failed_before"] == doc["failures"]


def _results_copy(tmp_path: Path, name: str = "R.json") -> Path:
    path = tmp_path / name
    path.write_bytes(FIXTURE.read_bytes())
    return path


def _refused(argv: list[str], capsys, needle: str) -> None:
    code, err = call(argv, capsys)
    assert "--force" in one_line(code, err, needle)


@pytest.mark.parametrize("argv", [
    lambda r, t: ["report", r, "-o", r],
    lambda r, t: ["report", r, "-o", str(t / "other.html")],  # another results document, whatever its name
    lambda r, t: ["export", r, "-o", r],
    lambda r, t: ["export", r, "--csv", r],
    lambda r, t: ["export", r, "--json", str(t / "other.html")],
    lambda r, t: ["export", r, "--pyperf", r],
    lambda r, t: ["export", r, "--hlog", r],
])
def test_no_reader_writes_over_a_results_document_without_force(argv, tmp_path, capsys):
    results = _results_copy(tmp_path)
    other = _results_copy(tmp_path, "other.html")
    before = results.read_bytes()
    _refused(argv(str(results), tmp_path), capsys, "holds a results document")
    assert results.read_bytes() == before and other.read_bytes() == before
    code, err = call([*argv(str(results), tmp_path), "--force"], capsys)
    assert code == 0, err
    assert results.read_bytes() != before or other.read_bytes() != before  # --force: written, as asked


def test_a_report_over_a_former_report_needs_no_force(tmp_path, capsys):
    results, page = _results_copy(tmp_path), tmp_path / "r.html"
    for _ in range(2):
        code, err = call(["report", str(results), "-o", str(page)], capsys)
        assert code == 0, err


@pytest.mark.parametrize("argv,needle", [
    (["--out", "{t}/R.json", "--report", "{t}/R.json"], "--report"),  # the issue's: results and report in one file
    (["--out", "{t}/new.json", "--report", "{t}/OTHER.json"], "holds a results document"),
    (["--resume", "{t}/OTHER.json", "--out", "{t}/Y.json"], "drop --out"),
    (["--resume", "{t}/OTHER.json", "--out", "-"], "drop --out"),
])
def test_run_refuses_before_measuring_to_write_over_results(argv, needle, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    other = _results_copy(tmp_path, "OTHER.json")
    before = other.read_bytes()
    args = [a.format(t=tmp_path) for a in argv]
    one_line(*call(["run", "--contender", "tcp-raw", "--workload", "usp.void", *args], capsys), needle)
    assert other.read_bytes() == before and not (tmp_path / "Y.json").exists()


def test_target_refuses_a_report_over_results(tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    other = _results_copy(tmp_path, "OTHER.json")
    argv = ["target", "http://127.0.0.1:9/x", "--out", str(tmp_path / "t.json"), "--report", str(other)]
    _refused(argv, capsys, "holds a results document")


def test_a_suite_report_never_goes_over_results(tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    one_line(*call(["suite", "usp2018", "-o", str(tmp_path / "S.html")], capsys), "a name of their own")
    page = _results_copy(tmp_path, "S.html")
    before = page.read_bytes()
    _refused(["suite", "usp2018", "-o", str(tmp_path / "S.json")], capsys, "holds a results document")
    assert page.read_bytes() == before and not (tmp_path / "S.json").exists()
