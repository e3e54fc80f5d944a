"""The arena end to end: real servers, real clients, the results document."""

from __future__ import annotations

import json

import pytest

import rpcarena
from rpcarena.config import RunConfig
from rpcarena.errors import UsageError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.results import load
from tests.conftest import cli


@pytest.fixture(scope="module")
def usp_run(tmp_path_factory):
    """A small arena from the command line: four contenders, two usp2018 functions. (Every function
    over every Python contender's server is tests/e2e/test_contenders.py's; a pattern's workloads,
    tests/seeds/test_workloads.py's.)"""
    out = tmp_path_factory.mktemp("usp") / "usp.json"
    done = cli("run", "--contender", "grpc-py,rpyc,rest-fastapi,tcp-raw", "--workload", "usp.int32,usp.distance",
               "--calls", "30", "--warmup", "0", "--out", str(out))
    return done, out


def test_usp_functions_verified_through_the_command(usp_run):
    done, out = usp_run
    assert done.returncode == 0, done.stderr
    results = load(out)
    assert len(results.cells) == 5 * 2  # tcp-raw, the floor of the Python clients, twice per function
    for cell in results.cells:
        assert cell.status == "ok", (cell.contender, cell.workload, cell.reason)
        assert cell.calls == 30 and cell.errors == {}, (cell.contender, cell.workload, cell.errors)
        assert cell.histogram.get_total_count() == 30
        assert cell.server_cpu_user_s is not None
    assert "usp.distance, 1 client" in done.stdout and "★ best" in done.stdout  # the ranked summary


def test_results_document_reads_back(usp_run):
    _, out = usp_run
    data = json.loads(out.read_text())
    assert data["format"] == "rpcarena-results" and data["version"] == 2
    assert data["placement"]["policy"] == "split" and data["failures"] == [] and "extra" not in data
    assert data["environment"]["cpu_model"] and data["environment"]["kernel"]
    assert data["config"]["contenders"] == ["grpc-py", "rpyc", "rest-fastapi", "tcp-raw"]
    frame = rpcarena.load(out).to_pandas()
    assert len(frame) == 10 and {"p50_us", "p99.9_us", "throughput_per_s", "server_cpu_us_per_call"} <= set(frame)


def test_rpyc_lists_cost_round_trips_that_tuples_do_not(tmp_path):
    """The usp2018 finding, by count: netref lists make the server call back per element."""
    config = RunConfig(contenders=["rpyc", "rpyc-tuple"], workloads=["usp.distance"], calls=40, warmup_s=0,
                       out=tmp_path / "r.json")
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    lists, tuples = cells["rpyc"], cells["rpyc-tuple"]
    assert lists.calls == tuples.calls == 40
    if lists.wire_in_packets is None:
        pytest.skip("byte counters need root and nft")
    assert lists.wire_in_packets / lists.calls >= 3 * tuples.wire_in_packets / tuples.calls


def test_wire_bytes_of_the_floor_are_exact(tmp_path):
    """tcp-raw sends a 4-byte length and the protobuf payload each way, nothing else."""
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.int32", "usp.distance"], calls=50, warmup_s=0,
                       out=tmp_path / "r.json")
    cells = {c.workload: c for c in Arena(config, plans(config)).run().cells}
    if cells["usp.int32"].wire_in_bytes is None:
        pytest.skip("byte counters need root and nft")
    assert cells["usp.int32"].payload_bytes_per_call == pytest.approx(2 * (4 + 5), abs=0.5)
    assert cells["usp.distance"].payload_bytes_per_call == pytest.approx(2 * (4 + 58), abs=0.5)


def test_clients_processes_and_placement_are_recorded(tmp_path):
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], clients=[3], calls=90, warmup_s=0,
                       out=tmp_path / "r.json", pin="split")
    (cell,) = Arena(config, plans(config)).run().cells
    assert cell.calls == 90 and cell.client_processes == 3
    assert cell.placement["policy"] in ("split", "same")
    assert cell.placement["server_ran_on"] == cell.placement["server_cpus"]


def test_duration_mode_and_samples_are_bounded(tmp_path):
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], duration_s=0.5, warmup_s=0,
                       sample_limit=50, out=tmp_path / "r.json")
    (cell,) = Arena(config, plans(config)).run().cells
    assert cell.calls > 0 and cell.errors == {}
    assert 0 < len(cell.samples_ns) <= 50


def test_unknown_client_for_a_protocol_is_refused(tmp_path):
    config = RunConfig(contenders=["grpc-py"], workloads=["usp.void"], client_drivers=["py-requests"],
                       out=tmp_path / "r.json")
    with pytest.raises(UsageError, match="speaks grpc"):
        Arena(config, plans(config)).run()
