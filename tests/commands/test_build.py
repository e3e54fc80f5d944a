"""`rpcarena build` says of each program what it did (built, already built, not built and why) and
exits non-zero when a build that was to happen did not; shown on small programs built by `sh`."""

from __future__ import annotations

import json
import sys
import threading

import pytest

from rpcarena.process import builds
from tests.helpers.cli import cli


def _worker(tmp_path, name: str, build: list[str], requires: tuple[str, ...] = ()) -> builds.Worker:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "main.txt").write_text(name)
    manifest = {"language": name, "requires": list(requires), "sources": ["*.txt"], "build": [build], "run": ["{out}"]}
    (folder / "build.json").write_text(json.dumps(manifest))
    return builds.Worker(folder, manifest)


@pytest.fixture
def programs(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    found = {"good": _worker(tmp_path, "good", ["sh", "-c", "cat main.txt > {out}"]),
             "broken": _worker(tmp_path, "broken", ["sh", "-c", "echo no; exit 3"]),
             "toolless": _worker(tmp_path, "toolless", ["true"], requires=("rpcarena-no-such-tool",))}
    tool = _worker(tmp_path, "delayline", ["sh", "-c", "cat main.txt > {out}"])
    monkeypatch.setattr(builds, "workers", lambda: found)
    monkeypatch.setattr(builds, "tool", lambda name: tool)
    return found


def _build(capsys, *options: str) -> tuple[int, str]:
    done = cli("build", *options)
    return done.returncode, done.stdout


def test_build_says_built_then_already_built(programs, capsys):
    code, out = _build(capsys, "--language", "good")
    assert code == 0 and out.startswith("good: built ") and programs["good"].artifact().read_text() == "good"
    code, out = _build(capsys, "--language", "good")
    assert code == 0 and out.startswith(f"good: already built, {programs['good'].artifact()}")


def test_a_failed_build_says_why_and_fails(programs, capsys):
    code, out = _build(capsys, "--language", "good,broken")
    assert code == 1 and "good: built " in out
    assert "broken: not built: build failed (exit 3 in sh -c echo no; exit 3); see " in out


def test_a_missing_tool_is_named_with_its_fix_and_fails_only_when_asked_for(programs, capsys):
    code, out = _build(capsys, "--language", "toolless")
    assert code == 1
    assert out.strip() == ("toolless: not built: needs rpcarena-no-such-tool (not found on PATH): "
                           "install rpcarena-no-such-tool; then rpcarena build")
    programs.pop("broken")
    code, out = _build(capsys)  # everything: what cannot be built here is skipped, with the reason
    assert code == 0 and "toolless: not built: needs rpcarena-no-such-tool" in out and "good: built" in out


def test_an_unknown_name_is_a_usage_error(programs, capsys):
    done = cli("build", "--language", "cobol")
    assert done.returncode == 2
    assert "--language cobol: unknown cobol; choose among good, broken, toolless, delayline" in done.stderr


HELD = """import fcntl, sys
try:
    fcntl.flock(open(sys.argv[1]), fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    open(sys.argv[2], "w").write("held")
"""


def test_a_schema_variant_builds_holding_its_base_workers_lock(tmp_path, monkeypatch):
    """A base and its variants build in one work tree (cargo's one target/): no two may interleave."""
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    base = _worker(tmp_path, "tree", ["sh", "-c", "cat main.txt > {out}"])
    base.manifest["schema_build"] = [[sys.executable, "-c", HELD, "{build}/../lock", "{build}/seen"],
                                     ["sh", "-c", "cat main.txt > {out}"]]
    variant = base.for_schema(b"a descriptor set")
    assert variant.lock_paths() == [base.build_dir / "lock", variant.build_dir / "lock"]
    variant.ensure_built()
    assert (variant.build_dir / "seen").read_text() == "held"


def test_a_variant_that_extends_its_base_builds_the_base_first_without_waiting_on_itself(tmp_path, monkeypatch):
    """`{base}` in a step (Java's variant jar extends the base jar): on a cache without the base, the
    base is built first and the variant then reads it; the variant's locks hold the base's too, so
    building the base under them would wait forever."""
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    base = _worker(tmp_path, "jar", ["sh", "-c", "cat main.txt > {out}"])
    base.manifest["schema_build"] = [["sh", "-c", "cat {base} {schema} > {out}"]]
    variant = base.for_schema(b" plus a schema")
    assert not base.built()
    building = threading.Thread(target=variant.ensure_built, daemon=True)  # a daemon: a hung one ends with pytest
    building.start()
    building.join(timeout=60)
    assert not building.is_alive(), "the variant's build waited on its own lock"
    assert base.built() and variant.built()
    assert variant.artifact().read_text() == "jar plus a schema"
    broken = _worker(tmp_path, "broken-jar", ["sh", "-c", "exit 3"])
    broken.manifest["schema_build"] = base.manifest["schema_build"]
    with pytest.raises(builds.UnavailableError, match=r"broken-jar worker unavailable: build failed \(exit 3"):
        broken.for_schema(b"x").ensure_built()
