"""The Go worker serves and calls a user's own schema (`rpcarena run --proto`), built per schema.

Against real servers on free ports, with the Go and the Python clients; every reply checked.
The variant of the Go worker for the orders schema is built once for the module (the first
test that needs it); the build cache is the user's own, as every other native test's.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import rpcarena
from rpcarena.contenders import all_contenders
from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.results import Cell
from rpcarena.userschema import compiled
from tests.conftest import cli
from tests.e2e.test_userschema import one_way_wrong, wrong_cells
from tests.helpers import EXAMPLES

ORDERS = EXAMPLES / "orders" / "orders.proto"
GO_SERVED = ("grpc-go", "rest-go", "tagless-go")


def buildable(language: str) -> builds.Worker:
    """The language's worker; skipped where it cannot build, except in CI, where it must."""
    worker = builds.workers()[language]
    if worker.unavailable() and not os.environ.get("CI"):
        pytest.skip(f"the {language} worker cannot build here: {worker.unavailable()}")
    return worker


def orders_built(worker: builds.Worker) -> builds.Worker:
    """The worker's variant for the orders schema, built (once for a module's tests)."""
    variant = worker.for_schema(compiled.descriptor_set(ORDERS)[0])
    variant.ensure_built()
    return variant


@pytest.fixture(scope="module")
def go() -> builds.Worker:
    return buildable("go")


@pytest.fixture(scope="module")
def orders_variant(go) -> builds.Worker:
    return orders_built(go)


def all_ok(out: Path, calls: int = 30) -> dict[tuple[str, str], Cell]:
    """Every cell of the results at `out`, by (contender, client), each asserted ok with `calls` calls."""
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", calls, {}), (key, cell.reason)
    return cells


def run_orders(out: Path, contenders: str, *extra: str) -> subprocess.CompletedProcess:
    return cli("run", "--proto", str(ORDERS), "--method", "orders.Orders/Place", "--data-file",
               str(EXAMPLES / "orders" / "requests.jsonl"), "--server-work", "50us", "--contender", contenders,
               "-n", "30", "--warmup", "0s", "--repeat", "1", "-o", str(out), *extra)


def test_the_go_mechanisms_serve_a_user_schema_to_the_go_and_the_python_clients(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, ",".join(GO_SERVED), "--client", "go,py")
    assert done.returncode == 0, done.stderr
    assert "go worker for this schema: reused" in done.stderr  # the module's build, not a second one
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    assert sorted(cells) == sorted((c, client) for c in GO_SERVED for client in ("go", "py"))
    for key, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {}), (key, cell.reason)


def test_the_go_clients_call_the_python_servers_of_a_user_schema(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, "grpc-py,rest-fastapi,tagless", "--client", "go")
    assert done.returncode == 0, done.stderr
    assert "go worker for this schema: reused" in done.stderr  # a client alone needs the variant too
    cells = {c.contender: c for c in rpcarena.load(out).cells}
    assert sorted(cells) == ["grpc-py", "rest-fastapi", "tagless"]
    for contender, cell in cells.items():
        assert (cell.client, cell.status, cell.calls, cell.errors) == ("go", "ok", 30, {}), (contender, cell.reason)


def test_the_go_floor_echoes_a_user_schemas_bytes(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, "tcp-raw-go", "--client", "go")
    assert done.returncode == 0, done.stderr
    (cell,) = rpcarena.load(out).cells
    assert (cell.contender, cell.status, cell.calls, cell.errors) == ("tcp-raw-go", "ok", 30, {}), cell.reason


def test_a_cluster_serves_and_drives_a_user_schema_on_its_nodes(orders_variant, tmp_path):
    """On `local:2` the servers start in Dask's worker processes, which learn the schema from the
    served file the task carries (its text, not the coordinator's path): a grpc-go server that did
    not would be the worker without the user's method, and answer every call with an error."""
    pytest.importorskip("distributed")
    before = set(Path(tempfile.gettempdir()).glob("rpcarena-*-node-*"))
    out = tmp_path / "r.json"
    done = run_orders(out, "grpc-go,grpc-py,tcp-raw-go", "--cluster", "local:2")
    assert done.returncode == 0, done.stderr
    cells = {c.contender: c for c in rpcarena.load(out).cells if c.trial == 0}
    assert sorted(cells) == ["grpc-go", "grpc-py", "tcp-raw-go"]
    for contender, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {}), (contender, cell.reason)
        assert cell.cluster, contender  # measured on the cluster's nodes
    assert set(Path(tempfile.gettempdir()).glob("rpcarena-*-node-*")) == before  # each node's copy removed


BLOBS = """syntax = "proto3";
package blobs;
service Blobs { rpc Put(Blob) returns (Blob); }
enum Kind { KIND_UNSET = 0; IMAGE = 1; TEXT = 2; }
message Part { bytes data = 1; Kind kind = 2; }
message Blob { string id = 1; bytes data = 2; repeated bytes chunks = 3; Kind kind = 4; repeated Part parts = 5; }
"""


def test_tagless_carries_bytes_and_enums_between_go_and_python(go, tmp_path):
    """Bytes (proto JSON's base64 in the samples, raw on the wire) and enums, byte for byte the same
    in both languages' tagless: each client calls each server, every reply checked."""
    proto = tmp_path / "blobs.proto"
    proto.write_text(BLOBS)
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(proto), "--method", "blobs.Blobs/Put", "--fill",
               "bytes=300B,repeated=3,seed=2,count=3", "--contender", "tagless,tagless-go", "--client", "go,py",
               "-n", "30", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    assert sorted(cells) == [(c, client) for c in ("tagless", "tagless-go") for client in ("go", "py")]
    for key, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {}), (key, cell.reason, cell.error_examples)


@pytest.mark.parametrize("method", ["Record", "Watch"])
def test_one_way_streams_between_go_and_python_every_reply_checked(go, tmp_path, method):
    """A client stream (Record: K ticks sent, one reply) and a server stream (Watch: one tick sent, K
    replies) through grpc-go and grpc-py, each called by the Go and the Python client; then the Go
    client expecting another reply (or one reply more) counts every call wrong."""
    ticks = EXAMPLES / "streaming" / "ticks.proto"
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(ticks), "--method", f"ticks.Ticker/{method}", "--data-file",
               str(EXAMPLES / "streaming" / "requests.jsonl"), "--stream-messages", "4", "--contender",
               "grpc-go,grpc-py,rest-go", "--client", "go,py", "-n", "20", "--warmup", "0s", "--repeat", "1",
               "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in [(c, client) for c in ("grpc-go", "grpc-py") for client in ("go", "py")]:
        cell = cells[key]
        assert (cell.status, cell.calls, cell.errors) == ("ok", 20, {}), (key, cell.reason, cell.error_examples)
    assert cells[("rest-go", "go")].status == "unsupported" and "stream" in cells[("rest-go", "go")].reason
    wrong = one_way_wrong(tmp_path, method, ["grpc-go", "grpc-py"], ["go"])
    assert wrong == {"grpc-go": {"wrong_answer": 5}, "grpc-py": {"wrong_answer": 5}}


def test_a_stream_is_served_by_grpc_go_and_unsupported_in_rest_go_and_tagless_go(go, tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", "ticks.Ticker/Follow",
               "--fill", "strings=8B,repeated=4,seed=3,count=2", "--contender", "grpc-go,rest-go,tagless-go",
               "--client", "go,py", "-n", "20", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in (("grpc-go", "go"), ("grpc-go", "py")):
        assert (cells[key].status, cells[key].calls, cells[key].errors) == ("ok", 20, {}), cells[key].reason
    unary_only = [cell for (contender, _), cell in cells.items() if contender in ("rest-go", "tagless-go")]
    assert len(unary_only) == 4 and all(c.status == "unsupported" and "stream" in c.reason for c in unary_only)


def wrong_answers(tmp_path: Path, served: tuple[str, ...], clients: tuple[str, ...]) -> None:
    """The servers answer "A-1" while the drivers expect "A-2": every call is a wrong answer, whichever
    client calls whichever server."""
    errors = {}
    for client in clients:
        found = wrong_cells(ORDERS, "orders.Orders/Place", '{"order_id": "A-1"}', lambda right: {"order_id": "A-2"},
                            list(served), [client], tmp_path / f"{client}.json", warmup_max_s=0)
        errors.update({(contender, client): found[contender] for contender in found})
    assert sorted(errors) == sorted((c, client) for c in served for client in clients)
    assert all(found == {"wrong_answer": 5} for found in errors.values()), errors


def test_the_go_client_counts_a_wrong_answer_and_a_go_server_answering_wrong_is_caught(orders_variant, tmp_path):
    wrong_answers(tmp_path, GO_SERVED, ("go", "py"))


def reused_and_changed(worker: builds.Worker, variant: builds.Worker, tmp_path: Path) -> None:
    """A second build of the orders schema is the first one's; a changed schema a new variant."""
    log = variant.build_dir / "build.log"
    before = log.stat().st_mtime_ns
    again = worker.for_schema(compiled.descriptor_set(ORDERS)[0])
    assert again.built() and again.build_dir == variant.build_dir
    again.ensure_built()
    assert log.stat().st_mtime_ns == before  # not built again
    changed = tmp_path / "orders.proto"
    changed.write_text(ORDERS.read_text().replace("bool express = 5;", "bool express = 5;\n  int32 priority = 6;"))
    other = worker.for_schema(compiled.descriptor_set(changed)[0])
    assert other.build_dir != variant.build_dir and other.build_dir.parent == variant.build_dir.parent
    assert not other.built()  # a changed schema is a variant of its own, built when a run needs it
    assert worker.for_schema(None) is worker


def test_a_built_schema_is_reused_and_a_changed_one_is_a_new_variant(go, orders_variant, tmp_path):
    reused_and_changed(go, orders_variant, tmp_path)


def test_a_feature_tagless_go_cannot_carry_is_named_as_the_python_tagless_names_it():
    schema.add_user(compiled.descriptor_set(EXAMPLES / "large" / "documents.proto")[0])
    go, python = (all_contenders()[name] for name in ("tagless-go", "tagless"))
    reason = go.unsupported("documents.Store/Put")
    assert reason == python.unsupported("documents.Store/Put")
    assert reason is not None and reason.startswith("documents.Document.attributes is a map: ")
    assert all_contenders()["grpc-go"].unsupported("documents.Store/Put") is None
