"""The benchmarks still start: each answers --help (they run for minutes, so `make bench` runs them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

BENCHMARKS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_a_benchmark_imports_and_explains_itself(path):
    done = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert "usage" in done.stdout
