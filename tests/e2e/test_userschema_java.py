"""The Java worker serves and calls a user's own schema (`rpcarena run --proto`), built per schema.

Against real servers on free ports, with the Java, the Python and (for wire interop) the Go clients;
every reply checked. The variant of the Java worker for the orders schema (the base jar plus
protoc-java's classes for it) is built once for the module (the first test that needs it); the
build cache is the user's own, as every other native test's. `--warmup-max 0` and no least warm-up
(`no_jit_warmup`): the JIT's warm-up is not what these tests check (as the other Java correctness tests).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import rpcarena
from rpcarena.contenders import all_contenders
from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.userschema import compiled
from tests.conftest import COLD_TIMEOUT_S, cli
from tests.e2e.test_userschema import one_way_served, one_way_wrong
from tests.e2e.test_userschema_go import all_ok, buildable, orders_built, reused_and_changed, run_orders, wrong_answers
from tests.helpers import EXAMPLES

ORDERS = EXAMPLES / "orders" / "orders.proto"
JAVA_SERVED = ("grpc-java", "rest-jackson")
COLD = ("--warmup-max", "0", "--timeout", f"{COLD_TIMEOUT_S}s")  # measured from a cold JVM's first call
# answers are checked here, not speed: a JVM's cells need not warm up for 5 s (the JIT's manifest)
pytestmark = pytest.mark.usefixtures("no_jit_warmup")


@pytest.fixture(scope="module")
def java() -> builds.Worker:
    return buildable("java")


@pytest.fixture(scope="module")
def orders_variant(java) -> builds.Worker:
    return orders_built(java)


def _run(out: Path, contenders: str, *extra: str) -> subprocess.CompletedProcess:
    return run_orders(out, contenders, *COLD, *extra)


def test_the_java_mechanisms_serve_a_user_schema_to_the_java_python_and_go_clients(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, ",".join(JAVA_SERVED), "--client", "java,py,go")
    assert done.returncode == 0, done.stderr
    assert "java worker for this schema: reused" in done.stderr  # the module's build, not a second one
    assert sorted(all_ok(out)) == sorted((c, client) for c in JAVA_SERVED for client in ("java", "py", "go"))


def test_the_java_clients_call_the_python_servers_of_a_user_schema(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, "grpc-py,rest-fastapi", "--client", "java")
    assert done.returncode == 0, done.stderr
    assert "java worker for this schema: reused" in done.stderr  # a client alone needs the variant too
    assert sorted(all_ok(out)) == [("grpc-py", "java"), ("rest-fastapi", "java")]


def test_the_java_floor_echoes_a_user_schemas_bytes(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, "tcp-raw-java", "--client", "java")
    assert done.returncode == 0, done.stderr
    assert sorted(all_ok(out)) == [("tcp-raw-java", "java")]


def test_a_stream_is_served_by_grpc_java_and_unsupported_in_rest_jackson(java, tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", "ticks.Ticker/Follow",
               "--fill", "strings=8B,repeated=4,seed=3,count=2", "--contender", "grpc-java,rest-jackson",
               "--client", "java,py", "-n", "20", "--warmup", "0s", *COLD, "--repeat", "1",
               "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in (("grpc-java", "java"), ("grpc-java", "py")):
        assert (cells[key].status, cells[key].calls, cells[key].errors) == ("ok", 20, {}), cells[key].reason
    rest = [cell for (contender, _), cell in cells.items() if contender == "rest-jackson"]
    assert len(rest) == 2 and all(c.status == "unsupported" and "stream" in c.reason for c in rest)


def test_the_java_client_counts_a_wrong_answer_and_a_java_server_answering_wrong_is_caught(orders_variant, tmp_path):
    wrong_answers(tmp_path, JAVA_SERVED, ("java", "py"))


def test_a_built_schema_is_reused_and_a_changed_one_is_a_new_variant(java, orders_variant, tmp_path):
    reused_and_changed(java, orders_variant, tmp_path)


def test_the_java_contenders_without_a_user_form_say_so():
    schema.add_user(compiled.descriptor_set(ORDERS)[0])
    contenders = all_contenders()
    for name in ("http-javaser", "typed-json-java"):
        reason = contenders[name].unsupported("orders.Orders/Place")
        assert reason is not None and reason.startswith(f"{name} does not serve a user's schema yet: "), reason
    for name in (*JAVA_SERVED, "tcp-raw-java"):
        assert contenders[name].unsupported("orders.Orders/Place") is None, name


@pytest.mark.parametrize("method", ["Record", "Watch"])
def test_one_way_streams_between_java_go_and_python_every_reply_checked(java, tmp_path, method):
    """A client stream (Record: K ticks sent, one reply) and a server stream (Watch: one tick sent, K
    replies) served by grpc-java to the Java and Python clients, and by grpc-go to the Java client;
    then the Java client expecting another reply (or one reply more) counts every call wrong."""
    served = [("grpc-java", "java"), ("grpc-java", "py"), ("grpc-go", "java")]
    one_way_served(tmp_path, method, "grpc-java,grpc-go", "java,py", served, *COLD)
    assert one_way_wrong(tmp_path, method, ["grpc-java"], ["java"]) == {"grpc-java": {"wrong_answer": 5}}
