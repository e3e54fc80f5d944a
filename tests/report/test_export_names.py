"""`export` names every cell's file and tag apart (issue 40): each trial of a `--repeat 3` run its own
.hgrm, numbered from 1 as `show --wide` numbers trials, and each step of every `--find-max` search its
own, named by its rate and its search's trial (the probes were all stored as trial 0, so a search's
files were written over one another)."""

from __future__ import annotations

import re

import rpcarena
from rpcarena.report import interop
from tests.helpers import FIXTURE
from tests.helpers.cli import cli


def exported(tmp_path, *run: str) -> tuple[rpcarena.Results, list[str]]:
    out = tmp_path / "r.json"
    done = cli("run", "--workload", "usp.int32", "-n", "200", "--debug-mode", "-o", str(out), *run)
    assert done.returncode == 0, done.stderr
    done = cli("export", str(out), "--hgrm", str(tmp_path / "hgrm"), "--hlog", str(tmp_path / "r.hlog"))
    assert done.returncode == 0, done.stderr
    return rpcarena.load(out), sorted(p.name for p in (tmp_path / "hgrm").iterdir())


def test_each_trial_of_a_repeated_run_has_its_own_file_numbered_from_1(tmp_path):
    doc, names = exported(tmp_path, "--contender", "tcp-raw,grpc-py", "--repeat", "3")
    assert names == [f"{c}-usp.int32-x1-trial-{k}.hgrm" for c in ("grpc-py", "tcp-raw") for k in (1, 2, 3)]
    tags = re.findall(r"^Tag=([^,]+),", (tmp_path / "r.hlog").read_text(), re.M)
    assert sorted(tags) == sorted(f"{c}_usp.int32_x1_trial_{k}" for c in ("grpc-py", "tcp-raw") for k in (1, 2, 3))


def test_each_step_of_each_find_max_search_has_its_own_file_with_its_rate_and_trial(tmp_path):
    doc, names = exported(tmp_path, "--contender", "grpc-py", "--find-max", "--slo", "p99<5ms", "--repeat", "2")
    probes = [c for c in doc.cells if c.rate_per_s is not None]
    assert len(probes) == 2 * 6 and {c.trial_number for c in probes} == {1, 2}  # each search's steps, its trial
    assert len(names) == len(doc.cells) == len(set(interop.identities(doc.cells)))
    for c in probes:
        assert f"grpc-py-usp.int32-x1-at-{c.rate_per_s:.0f}-s-trial-{c.trial_number}.hgrm" in names
    assert {"grpc-py-usp.int32-x1-trial-1.hgrm", "grpc-py-usp.int32-x1-trial-2.hgrm"} <= set(names)  # capacity


def test_cells_measured_alike_get_distinct_names():
    cell = rpcarena.load(FIXTURE).cells[0]
    assert interop.identities([cell, cell, cell]) == [interop.identity(cell), interop.identity(cell) + " #2",
                                                      interop.identity(cell) + " #3"]
