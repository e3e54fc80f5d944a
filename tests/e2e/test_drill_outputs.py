"""The drill's outputs: nothing rpcarena writes goes through a planted link, onto a device, or over a
results document, whatever the option or the name it generates (issue 42, "Outputs never written through").

In-process through `rpcarena.cli.main`; a run's measuring is stubbed by one that saves its document
as a run does, so only the writing is under test.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rpcarena.results import Results
from tests.commands.test_input_checks import call
from tests.conftest import FIXTURE

RUN = ["run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "5"]


@pytest.fixture
def saving_run(monkeypatch):
    """`run` and `target` measure nothing, and save their document as a run does."""
    def measuring(config, *args, **kwargs):
        results = Results(config=config.to_json())
        results.save(config.out)
        return results
    monkeypatch.setattr("rpcarena.commands.run.run_arena", measuring)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("another user's file")
    return victim


def _refused(code: int, err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, (code, err)
    assert all(needle in lines[0] for needle in needles), lines[0]


def test_run_report_through_a_planted_link_is_refused(saving_run, tmp_path, capsys):
    victim = _victim(tmp_path)
    page = tmp_path / "page.html"
    page.symlink_to(victim)
    _refused(*call([*RUN, "-o", str(tmp_path / "r.json"), "--report", str(page)], capsys), "symbolic link")
    assert victim.read_text() == "another user's file" and page.is_symlink()


def test_report_out_through_a_planted_link_is_refused(tmp_path, capsys):
    victim = _victim(tmp_path)
    page = tmp_path / "page.html"
    page.symlink_to(victim)
    _refused(*call(["report", str(FIXTURE), "-o", str(page), "--force"], capsys), "symbolic link")
    assert victim.read_text() == "another user's file" and page.is_symlink()


def _generated(argv: list[str], folder: Path, capsys) -> list[Path]:
    """The names a command generates in `folder`, learnt from a first run into it (then emptied)."""
    code, err = call(argv, capsys)
    assert code == 0, err
    names = sorted(folder.iterdir())
    for path in names:
        path.unlink()
    assert names
    return names


@pytest.mark.parametrize("argv", [["export", str(FIXTURE), "--hgrm", "{dir}"],
                                  ["report", str(FIXTURE), "--format", "svg", "-o", "{dir}"]],
                         ids=["export-hgrm", "report-svg"])
@pytest.mark.parametrize("planted", ["link", "results"])
def test_a_generated_name_is_written_neither_through_a_link_nor_over_results(argv, planted, tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    argv = [a.replace("{dir}", str(folder)) for a in argv]
    first = _generated(argv, folder, capsys)[0]
    victim = _victim(tmp_path)
    if planted == "link":
        first.symlink_to(victim)
    else:
        first.write_text(FIXTURE.read_text())
    before = first.read_text()
    code, err = call(argv, capsys)
    _refused(code, err, str(first))
    assert first.read_text() == before and victim.read_text() == "another user's file"
    assert first.is_symlink() == (planted == "link")


@pytest.mark.parametrize("option", ["--csv", "--hlog", "--pyperf"])
def test_export_through_a_planted_link_is_refused(option, tmp_path, capsys):
    victim = _victim(tmp_path)
    out = tmp_path / "out.txt"
    out.symlink_to(victim)
    _refused(*call(["export", str(FIXTURE), option, str(out), "--force"], capsys), "symbolic link")
    assert victim.read_text() == "another user's file"


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_out_onto_a_device_node_is_refused_even_with_force(saving_run, tmp_path, capsys):
    device = tmp_path / "null"  # a scratch folder's own node with /dev/null's numbers; /dev is not touched
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    _refused(*call([*RUN, "-o", str(device), "--force"], capsys), "device")
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_out_to_stdout_leaves_a_report_over_results_refused(saving_run, tmp_path, capsys):
    doc = tmp_path / "V.json"
    doc.write_text(FIXTURE.read_text())
    _refused(*call([*RUN, "-o", "-", "--report", str(doc)], capsys), "results document")
    assert doc.read_text() == FIXTURE.read_text()
