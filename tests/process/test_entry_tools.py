"""A tool only one manifest entry needs (capnp-rust's `capnp`): when it is missing the worker still
builds, told which tools are missing, and that entry alone is unavailable, naming the install."""

from __future__ import annotations

import json

from rpcarena.contenders.native import NativeContender
from rpcarena.process import builds

MISSING = "rpcarena-no-such-tool"


def _worker(tmp_path, tool: str) -> builds.Worker:
    folder = tmp_path / "w"
    folder.mkdir()
    (folder / "main.txt").write_text("w")
    entries = [{"id": "plain", "protocol": "p", "server": True, "client": True},
               {"id": "tooled", "protocol": "p", "server": True, "client": True, "requires": [tool]}]
    step = ["sh", "-c", f"printf %s \"${builds.MISSING_TOOLS}\" > {{out}}"]
    manifest = {"language": "w", "requires": [], "sources": ["*.txt"], "build": [step], "run": ["{out}"],
                "contenders": entries}
    (folder / "worker.json").write_text(json.dumps(manifest))
    return builds.Worker(folder, manifest)


def _contenders(worker: builds.Worker) -> dict[str, NativeContender]:
    return {entry.id: NativeContender(worker, entry) for entry in worker.entries}


def test_a_missing_entry_tool_leaves_the_worker_built_and_that_entry_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    worker = _worker(tmp_path, MISSING)
    worker.ensure_built()
    assert worker.artifact().read_text() == MISSING  # the build was told what it goes without
    found = _contenders(worker)
    assert found["plain"].unavailable() is None
    assert found["tooled"].unavailable() == (f"needs {MISSING} (not found on PATH): install {MISSING}; "
                                             "then rpcarena build")


def test_an_entry_tool_found_is_not_named_to_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    worker = _worker(tmp_path, "sh")
    worker.ensure_built()
    assert worker.artifact().read_text() == ""
    assert [c.unavailable() for c in _contenders(worker).values()] == [None, None]


def test_capnp_is_named_with_the_debian_package_that_installs_it():
    assert builds._needs(["capnp"]) == ("needs capnp (not found on PATH): apt-get install capnproto; "
                                        "then rpcarena build")
