"""The Rust worker serves and calls a user's own schema (`rpcarena run --proto`), built per schema.

Against real servers on free ports, with the Rust, the Python and (for gRPC's wire) the Go clients;
every reply checked. The variant of the Rust worker for the orders schema is built once for the
module (the first test that needs it); the build cache is the user's own, as every other native
test's.
"""

from __future__ import annotations

import json

import pytest

import rpcarena
from rpcarena.contenders import all_contenders
from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.userschema import compiled
from tests.conftest import cli
from tests.e2e.test_userschema import one_way_served, one_way_wrong
from tests.e2e.test_userschema_go import all_ok, buildable, orders_built, reused_and_changed, run_orders, wrong_answers
from tests.helpers import EXAMPLES

ORDERS = EXAMPLES / "orders" / "orders.proto"
RUST_SERVED = ("grpc-tonic", "rest-warp", "rest-axum")


@pytest.fixture(scope="module")
def rust() -> builds.Worker:
    return buildable("rust")


@pytest.fixture(scope="module")
def orders_variant(rust) -> builds.Worker:
    return orders_built(rust)


def test_the_rust_mechanisms_serve_a_user_schema_to_the_rust_and_the_python_clients(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, ",".join(RUST_SERVED), "--client", "rust,py")
    assert done.returncode == 0, done.stderr
    assert "rust worker for this schema: reused" in done.stderr  # the module's build, not a second one
    cells = all_ok(out)
    assert sorted(cells) == sorted((c, client) for c in RUST_SERVED for client in ("rust", "py"))


def test_the_go_and_rust_clients_call_each_others_servers_of_a_user_schema(orders_variant, tmp_path):
    """The wire both ways: grpc-go's and rest-go's clients (protoc-gen-go's code, protojson) call
    tonic's and warp's servers, and the Rust clients call grpc-go and rest-go."""
    buildable("go")
    out = tmp_path / "r.json"
    done = run_orders(out, "grpc-tonic,rest-warp,grpc-go,rest-go", "--client", "rust,go")
    assert done.returncode == 0, done.stderr
    assert sorted(all_ok(out)) == sorted((c, client) for c in ("grpc-tonic", "rest-warp", "grpc-go", "rest-go")
                                         for client in ("rust", "go"))


def test_the_rust_clients_call_the_python_servers_of_a_user_schema(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, "grpc-py,rest-fastapi", "--client", "rust")
    assert done.returncode == 0, done.stderr
    assert "rust worker for this schema: reused" in done.stderr  # a client alone needs the variant too
    assert sorted(all_ok(out)) == [("grpc-py", "rust"), ("rest-fastapi", "rust")]


def test_the_rust_floor_echoes_a_user_schemas_bytes(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = run_orders(out, "tcp-raw-rust", "--client", "rust")
    assert done.returncode == 0, done.stderr
    assert {key[0] for key in all_ok(out)} == {"tcp-raw-rust"}


def test_a_reply_file_is_answered_pair_by_pair_by_the_rust_servers(orders_variant, tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text("".join(json.dumps({"order_id": f"A-100{k}", "status": "placed", "eta_minutes": 10 * k}) + "\n"
                               for k in (1, 2, 3)))
    out = tmp_path / "r.json"
    done = run_orders(out, "grpc-tonic,rest-warp", "--client", "rust,py", "--reply-file", str(replies))
    assert done.returncode == 0, done.stderr
    assert len(all_ok(out)) == 4


def test_a_stream_is_served_by_grpc_tonic_both_ways_and_unsupported_in_rest_warp_and_rest_axum(rust, tmp_path):
    """A bidirectional stream: tonic's server to the Rust and Python clients, and the Rust client to
    grpcio's server (which sends its headers only with its first reply)."""
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", "ticks.Ticker/Follow",
               "--fill", "strings=8B,repeated=4,seed=3,count=2", "--contender", ",".join((*RUST_SERVED, "grpc-py")),
               "--client", "rust,py", "-n", "20", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in (("grpc-tonic", "rust"), ("grpc-tonic", "py"), ("grpc-py", "rust")):
        assert (cells[key].status, cells[key].calls, cells[key].errors) == ("ok", 20, {}), (key, cells[key].reason)
    unary_only = [cell for (contender, _), cell in cells.items() if contender in ("rest-warp", "rest-axum")]
    assert len(unary_only) == 4 and all(c.status == "unsupported" and "stream" in c.reason for c in unary_only)


def test_the_rust_client_counts_a_wrong_answer_and_a_rust_server_answering_wrong_is_caught(orders_variant, tmp_path):
    wrong_answers(tmp_path, RUST_SERVED, ("rust", "py"))


def test_a_built_schema_is_reused_and_a_changed_one_is_a_new_variant(rust, orders_variant, tmp_path):
    reused_and_changed(rust, orders_variant, tmp_path)


def test_the_rust_contenders_name_what_of_a_schema_they_lack():
    schema.add_user(compiled.descriptor_set(EXAMPLES / "streaming" / "ticks.proto")[0])
    contenders = all_contenders()
    reasons = {name: contenders[name].unsupported("ticks.Ticker/Follow") for name in RUST_SERVED}
    assert reasons["grpc-tonic"] is None
    one_way = [contenders["grpc-tonic"].unsupported(m) for m in ("ticks.Ticker/Record", "ticks.Ticker/Watch")]
    assert one_way == [None, None]
    assert reasons["rest-warp"] == reasons["rest-axum"] == contenders["rest-go"].unsupported("ticks.Ticker/Follow")


@pytest.mark.parametrize("method", ["Record", "Watch"])
def test_one_way_streams_between_rust_go_and_python_every_reply_checked(rust, tmp_path, method):
    """A client stream (Record: K ticks sent, one reply) and a server stream (Watch: one tick sent, K
    replies) served by grpc-tonic to the Rust and Python clients, and by grpc-go to the Rust client;
    then the Rust client expecting another reply (or one reply more) counts every call wrong."""
    buildable("go")
    served = [("grpc-tonic", "rust"), ("grpc-tonic", "py"), ("grpc-go", "rust")]
    one_way_served(tmp_path, method, "grpc-tonic,grpc-go", "rust,py", served)
    assert one_way_wrong(tmp_path, method, ["grpc-tonic"], ["rust"]) == {"grpc-tonic": {"wrong_answer": 5}}
