"""The drill's Dask tracebacks: a clean `--cluster local:2 -q` run prints nothing on stderr; what Dask
logs (a traceback per timed-out queue poll, when one times out) is in the run's log folder (issue 42, 8)."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

pytest.importorskip("distributed")


def test_a_clean_local_cluster_run_prints_nothing_on_stderr(tmp_path):
    out = tmp_path / "r.json"
    done = run_cli("run", "--cluster", "local:2", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "200",
                   "--warmup", "0", "-q", "-o", str(out), timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    (logs,) = (tmp_path / "logs").iterdir()
    # Dask's lines, when it logs any (a timed-out queue poll logs a traceback), go to the run's
    # cluster logs; the workers' file is opened before they start
    assert (logs / "cluster" / "workers.log").is_file()
    assert {p.name for p in (logs / "cluster").iterdir()} <= {"workers.log", "dask.log"}
