"""The warm-up a cell's drivers are given: a JIT's least on either side (the server's worker too),
the most a driver with a JIT may warm up while its compiler is busy, and what the results record."""

from __future__ import annotations

import os

import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.results import load


def _spec(config: RunConfig, contender_id: str, client: str):
    (plan,) = [p for p in contender_cells.plans(config) if p.client == client]
    contender = contenders.get(contender_id)
    return contender_cells.drive_spec(plan, contender, config, "127.0.0.1:9",
                                      contender_cells.native_client(plan, contender))


def _config(contender_id: str, client: str, **changes) -> RunConfig:
    return RunConfig(contenders=[contender_id], workloads=["usp.int32"], client_drivers=[client], calls=10,
                     warmup_s=0, out=None, **changes)


def test_a_java_driver_may_warm_up_until_its_manifests_most():
    spec = _spec(_config("grpc-go", "java"), "grpc-go", "java")
    assert (spec.warmup_s, spec.warmup_max_s) == (5.0, 30.0)  # workers/java/worker.json
    assert spec.to_json()["warmup_max_s"] == 30.0


def test_warmup_max_zero_keeps_the_least_fixed():
    spec = _spec(_config("grpc-go", "java", warmup_max_s=0), "grpc-go", "java")
    assert (spec.warmup_s, spec.warmup_max_s) == (5.0, 5.0)


def test_drivers_without_a_jit_get_no_most_and_a_java_server_its_least():
    go = _spec(_config("grpc-go", "go"), "grpc-go", "go")
    assert (go.warmup_s, go.warmup_max_s) == (0.0, None) and "warmup_max_s" not in go.to_json()
    served_by_java = _spec(_config("grpc-java", "py"), "grpc-java", "py")
    assert (served_by_java.warmup_s, served_by_java.warmup_max_s) == (5.0, None)


def test_the_cell_records_the_warm_up_the_java_driver_took(tmp_path):
    reason = contenders.get("tcp-raw-java").unavailable()
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)
    config = RunConfig(contenders=["tcp-raw-java"], workloads=["usp.int32"], client_drivers=["java"], calls=50,
                       warmup_s=0, warmup_max_s=7, out=tmp_path / "r.json")
    Arena(config, contender_cells.plans(config)).run()
    (cell,) = load(tmp_path / "r.json").cells
    assert cell.status == "ok", cell.reason
    assert 5.0 <= cell.warmup_s <= 7.0 + 1.0, cell.warmup_s  # its least, to its most (and the barrier's wait)
