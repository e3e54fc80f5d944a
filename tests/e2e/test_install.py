"""rpcarena installed from its wheel as a user installs it: in a fresh virtual environment outside
the checkout, run from a folder outside it.

The sdist and the wheel are built as a release builds them (the wheel from the sdist, so both must
carry the tree), the wheel's dependencies come from PyPI through pip's cache.
The installed copy must find its schema and every native worker in itself, list each unavailable
contender with what fixes it, measure the Python contenders, and build a native program from its
own sources into the cache. About two minutes, most of it pip.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import rpcarena
from rpcarena import contenders
from rpcarena.contenders import native
from tests.conftest import ROOT

IN_CI = os.environ.get("CI") == "true"
NATIVE_IDS = [c.id for c in [*contenders.all_contenders().values(), *native.clients_only()]
              if isinstance(c, native.NativeContender)]


def _pypi_reachable() -> bool:
    if os.environ.get("PIP_INDEX_URL"):
        return True
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return False
    return True


def _run(argv: list, cwd: Path, timeout: float, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**environment, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **env}, check=False)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Iterator[Path]:
    """The bin/ folder of a fresh virtual environment holding rpcarena from its wheel (removed after:
    a few hundred MB that pytest would keep for three runs)."""
    if not IN_CI and not _pypi_reachable():
        pytest.skip("installing the wheel's dependencies needs PyPI (pypi.org:443 unreachable); CI always runs this")
    tmp = tmp_path_factory.mktemp("install")
    # The wheel from the sdist, as `python -m build` does (pip's build environment is the quicker),
    # and this pip installing into a venv without one of its own: a minute less than the usual way.
    # setuptools stages an sdist in the checkout itself (rpcarena-<version>/, removed after): two
    # builds at once, from two xdist workers, remove each other's files; one at a time, by a lock in
    # the run's shared temporary folder
    with (tmp_path_factory.getbasetemp().parent / "sdist.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _run([sys.executable, "-m", "build", "--sdist", "--outdir", tmp / "dist", ROOT], tmp, 300)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "dist",
          next((tmp / "dist").glob("rpcarena-*.tar.gz"))], tmp, 300)
    _run([sys.executable, "-m", "venv", "--without-pip", tmp / "venv"], tmp, 120)
    _run([sys.executable, "-m", "pip", "--python", tmp / "venv" / "bin" / "python", "install", "-q", "--no-compile",
          next((tmp / "dist").glob("rpcarena-*.whl"))], tmp, 600)
    yield tmp / "venv" / "bin"
    shutil.rmtree(tmp, ignore_errors=True)


def test_installed_copy_runs_from_its_own_tree(installed, tmp_path):
    where_is = "from rpcarena import sources; print(sources.root(), sources.installed())"
    done = _run([installed / "python", "-c", where_is], tmp_path, 60)
    where, flag = done.stdout.split()
    assert Path(where).is_relative_to(installed.parent) and flag == "True"
    for name in ("proto/arena.proto", "proto/vectors/arena.json", "workers/go/gen.sh", "workers/rust/Cargo.lock",
                 "workers/java/pom.xml", "delayline/build.json"):
        assert (Path(where) / name).is_file(), name
    assert not list(Path(where).glob("workers/*/target")) and not list(Path(where).rglob("__pycache__"))


def test_installed_list_explains_every_unavailable_contender(installed, tmp_path):
    """Without the toolchains on PATH every native contender is listed, with what to install."""
    done = _run([installed / "rpcarena", "list", "--format", "json"], tmp_path, 120, PATH=str(installed))
    listing = json.loads(done.stdout)
    listed = [*listing["contenders"], *listing["clients_without_server"]]
    rows = {row["id"]: dict(row, status=f"unavailable: {row['unavailable_because']}" if not row["available"]
                            else "available") for row in listed}
    assert set(NATIVE_IDS) <= set(rows) and set(contenders.all_contenders()) <= set(rows)
    for cid in NATIVE_IDS:
        status = rows[cid]["status"]
        assert status.startswith("unavailable: needs ") and "not found on PATH" in status, (cid, status)
        assert "install" in status and status.endswith("then rpcarena build"), (cid, status)
    assert rows["grpc-go"]["status"].startswith("unavailable: needs go, protoc")
    assert rows["grpc-py"]["status"] == rows["rest-fastapi"]["status"] == "available"


def test_installed_copy_measures_the_python_contenders(installed, tmp_path):
    out = tmp_path / "r.json"
    _run([installed / "rpcarena", "run", "--contender", "grpc-py,rest-fastapi", "--workload", "usp.int32",
          "--calls", "500", "--out", out], tmp_path, 300)
    cells = rpcarena.load(out).cells
    assert sorted((c.contender, c.status, c.calls) for c in cells) == [("grpc-py", "ok", 500),
                                                                       ("rest-fastapi", "ok", 500)]


def test_installed_copy_builds_a_native_program_from_its_sources(installed, tmp_path):
    """The delay line, the quickest native build: from the installed tree, staged in the cache."""
    if shutil.which("go") is None and not IN_CI:
        pytest.skip("go is not on PATH")
    cache = tmp_path / "cache"
    done = _run([installed / "rpcarena", "build", "--language", "delayline"], tmp_path, 300, RPCARENA_CACHE=str(cache))
    assert done.stdout.startswith("delayline: built ") and len(list(cache.glob("build/delayline-*/OK"))) == 1
    assert not list(cache.glob("build/*/src")), "the staged sources stay behind"
    again = _run([installed / "rpcarena", "build", "--language", "delayline"], tmp_path, 60, RPCARENA_CACHE=str(cache))
    assert again.stdout.startswith("delayline: already built, ")
