"""The drill's full disk: a write that fails for want of room exits 1 (a runtime error), not 2 (a
usage error), in one line (issue 42, item 8). A real full file system: a 256 KiB tmpfs, filled."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import FIXTURE, run_cli

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def full(tmp_path):
    folder = tmp_path / "full"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True,
                             text=True, timeout=30, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs here: {mounted.stderr.strip()}")
    try:
        with (folder / "filler").open("wb") as filler:
            try:
                filler.write(b"\0" * (1 << 20))
            except OSError:
                pass  # full: what the test needs
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30, check=False)


@pytest.mark.parametrize("argv", [
    ["export", str(FIXTURE), "--csv", "{full}/cells.csv"],
    ["report", str(FIXTURE), "-o", "{full}/report.html"],
    ["run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "5", "--warmup", "0", "-o", "{full}/r.json"],
], ids=["export", "report", "run"])
def test_a_full_disk_exits_1_in_one_line(argv, full):
    done = run_cli(*[a.replace("{full}", str(full)) for a in argv], timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("cell ")]
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "No space left" in lines[0], lines
