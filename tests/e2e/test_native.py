"""Go, Rust and Java contenders through the worker contract, with native and Python clients.

Each worker's own tests check every shared vector against its servers; here the
orchestrator drives them end to end: builds them (cached), starts their servers
fresh per cell, and verifies every answer from both kinds of client.
"""

from __future__ import annotations

import os

import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.contenders import native
from rpcarena.errors import UsageError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import client_ids, plans
from tests.conftest import COLD_TIMEOUT_S

# a scalar, a nested message, a large one and a stream: every encoding of every shared vector is the
# workers' own tests' to check (test-native), so here each path end to end once, a cell per server start
WORKLOADS = ["usp.int64", "usp.distance", "hprpc.large8192", "cs6650.stream"]
JVM_WORKLOADS = ["usp.int64", "hprpc.large8192", "cs6650.stream"]
NATIVE = [c.id for c in contenders.all_contenders().values() if isinstance(c, native.NativeContender)]
# answers are checked here, not speed: a JVM's cells need not warm up for 5 s (the JIT's manifest)
pytestmark = pytest.mark.usefixtures("no_jit_warmup")


def _cold(**fields) -> RunConfig:
    """A configuration whose cells start measuring at once, a JVM's too (no_jit_warmup), each call
    given the time a cold runtime takes on a busy machine."""
    return RunConfig(**{"warmup_s": 0, "warmup_max_s": 0, "timeout_ms": COLD_TIMEOUT_S * 1000, **fields})


def _available(contender_id: str) -> None:
    reason = contenders.get(contender_id).unavailable()
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


@pytest.mark.parametrize("contender_id", NATIVE)
def test_native_contender_verified_by_its_own_and_python_clients(contender_id, tmp_path):
    _available(contender_id)
    contender = contenders.get(contender_id)
    # its own language's client where it has one (grpc-cpp is a server only)
    clients = list(contender.native_clients) + contenders.python_client_ids(contender.protocol)[:1]
    loads = JVM_WORKLOADS if contender.language == "java" else WORKLOADS
    config = _cold(contenders=[contender_id], workloads=loads, client_drivers=clients, calls=20,
                   out=tmp_path / "r.json")
    results = Arena(config, plans(config)).run()
    measured = [c for c in results.cells if c.status == "ok"]
    for cell in results.cells:
        assert cell.status in ("ok", "unsupported"), (cell.client, cell.workload, cell.reason)
        if cell.status == "ok":
            assert cell.calls == 20 and cell.errors == {}, (cell.client, cell.workload, cell.errors)
    assert len({c.client for c in measured}) == len(clients)


def test_matrix_python_client_to_every_grpc_server(tmp_path):
    servers = [c for c in ("grpc-go", "grpc-tonic", "grpc-java") if c in NATIVE]
    for server in servers:
        _available(server)
    config = _cold(contenders=servers + ["grpc-py"], workloads=["usp.person"], client_drivers=["py"], calls=20,
                   out=tmp_path / "r.json")
    for cell in Arena(config, plans(config)).run().cells:
        assert cell.status == "ok" and cell.calls == 20, (cell.contender, cell.reason)


def test_native_driver_reports_synced_server_counters(tmp_path):
    synced = [w.language for w in native.workers().values() if w.manifest.get("drive_sync")]
    if not synced:
        pytest.skip("no native worker syncs")
    ids = [next(c.id for c in contenders.all_contenders().values()
                if c.language == lang and c.protocol == "tcp-raw") for lang in synced]
    config = _cold(contenders=ids, workloads=["usp.int32"], calls=50, warmup_s=0.2, out=tmp_path / "r.json")
    for cell in Arena(config, plans(config)).run().cells:
        assert cell.status == "ok", cell.reason
        assert not cell.server_counters_include_warmup
        if cell.wire_in_bytes is not None:  # exactly the measured calls: 2 x (4 + 5) payload bytes each
            assert cell.payload_bytes_per_call == pytest.approx(18, abs=1)


def test_load_client_rust_h1_verifies_every_http_json_server(tmp_path):
    """rust-h1 has no server: it drives other servers, framed by Content-Length (warp, uvicorn,
    the JDK server) or by chunks (net/http chunks replies over 2 KB, such as large8192)."""
    load_client = native.client("rust-h1", "http-json")
    assert load_client is not None and not load_client.has_server
    if load_client.unavailable() and os.environ.get("CI") != "true":
        pytest.skip(load_client.unavailable())
    servers = [c for c in ("rest-warp", "rest-go", "rest-jackson") if c in NATIVE] + ["rest-fastapi"]
    config = _cold(contenders=servers, workloads=["usp.person", "hprpc.large8192", "infobip.items10"],
                   client_drivers=["rust-h1"], calls=20, out=tmp_path / "r.json")
    cells = Arena(config, plans(config)).run().cells
    assert len(cells) == 3 * len(servers)
    for cell in cells:
        assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "rust-h1", 20, {}), \
            (cell.contender, cell.workload, cell.reason, cell.errors)
        assert cell.client_tool["name"] == "rust-h1"


def test_client_only_ids_are_clients_not_contenders():
    assert "rust-h1" not in contenders.all_contenders()
    assert client_ids(contenders.get("rest-go"), ["go", "rust-h1"]) == ["go", "rust-h1"]
    with pytest.raises(UsageError, match="no client 'rust-h1' speaks grpc"):
        client_ids(contenders.get("grpc-go"), ["rust-h1"])
    with pytest.raises(UsageError, match="--client rust-h1"):
        contenders.get("rust-h1")


def test_list_shows_the_load_client_apart_and_among_each_protocols_clients():
    from tests.conftest import cli

    done = cli("list")  # one line per contender, and per client without a server
    assert done.returncode == 0, done.stderr
    assert "clients without a server (--client ID)" in done.stdout
    rows = [line for line in done.stdout.splitlines() if line.split()[:1] == ["rust-h1"]]
    assert len(rows) == 1 and "http-json" in rows[0]
    warp = cli("list", "rest-warp")  # the detail: its clients
    assert "rust-h1" in next(line for line in warp.stdout.splitlines() if line.startswith("clients: "))
