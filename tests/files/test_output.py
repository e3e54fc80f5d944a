"""files.output: every file written is made new beside its path and renamed over a regular file only."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest

from rpcarena.errors import ArenaError, UsageError
from rpcarena.files import output
from tests.conftest import FIXTURE


def _planted(kind: str, path, victim):
    """Something another user could have put at `path`: a link to `victim`, a device, a FIFO, a folder."""
    if kind == "link":
        path.symlink_to(victim)
    elif kind == "dangling link":
        path.symlink_to(victim.with_name("absent"))
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers, in a scratch folder
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


KINDS = ["link", "dangling link", "device", "fifo", "folder"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("force", [False, True])
def test_what_is_not_a_regular_file_is_refused_and_left_alone(kind, force, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's")
    path = tmp_path / "out.html"
    _planted(kind, path, victim)
    before = os.lstat(path)
    with pytest.raises(UsageError) as refused:
        output.write(path, "<html>", option="--report", force=force)
    assert "\n" not in str(refused.value) and "--report" in str(refused.value)
    after = os.lstat(path)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert victim.read_text() == "the victim's"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["victim.txt", "out.html"])  # no temp left
    assert not (tmp_path / "absent").exists()


def test_a_new_file_and_a_regular_one_are_written(tmp_path):
    path = tmp_path / "deep" / "out.csv"
    output.write(path, "a\n")
    output.write(path, b"b\n", durable=True)
    assert path.read_text() == "b\n" and [p.name for p in path.parent.iterdir()] == ["out.csv"]


def _reordered(text: str) -> str:
    """The document as `jq -S` writes it: keys sorted, "cells" before "format"."""
    return json.dumps(json.loads(text), sort_keys=True, indent=1)


DOCUMENTS = {
    "as written": lambda text: text,
    "keys sorted": _reordered,
    "keys sorted, cut after format": lambda text: _reordered(text)[:_reordered(text).index('"format"') + 40],
    "keys sorted, cut before format": lambda text: _reordered(text)[:3000],
    "cut short": lambda text: text[:200],
}


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_a_results_document_is_recognised_however_ordered_or_cut(doc, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(DOCUMENTS[doc](FIXTURE.read_text()))
    with pytest.raises(UsageError, match="holds a results document"):
        output.write(path, "<html>", option="-o")
    output.write(path, "<html>", option="-o", force=True)
    assert path.read_text() == "<html>"


def test_a_file_that_merely_mentions_results_is_not_one(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text('# notes\n"format": "rpcarena-results" is what the documents say\n')
    output.write(path, "new")
    assert path.read_text() == "new"


def test_no_room_is_a_runtime_error_and_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "r.csv"
    path.write_text("old")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ArenaError) as caught:
        output.write(path, "new", durable=True)
    assert not isinstance(caught.value, UsageError) and caught.value.exit_code == 1
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["r.csv"]


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_folder_of_generated_names_is_never_a_link(kind, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = tmp_path / "figures"
    _planted(kind, path, elsewhere)
    with pytest.raises(UsageError, match="follows no link"):
        output.folder(path, "--hgrm")
    assert list(elsewhere.iterdir()) == []
