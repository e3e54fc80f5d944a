"""The Java worker serves and calls a user's own schema (`rpcarena run --proto`), built per schema.

Against real servers on free ports, with the Java, the Python and (for wire interop) the Go clients;
every reply checked. The variant of the Java worker for the orders schema (the base jar plus
protoc-java's classes for it) is built once for the module (the first test that needs it); the
build cache is the user's own, as every other native test's. `--warmup-max 0`: the JIT's warm-up
is not what these tests check (as the other Java correctness tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import run_cli

import rpcarena
from rpcarena.contenders import all_contenders
from rpcarena.process import builds
from rpcarena.protocol import schema
from rpcarena.userschema import compiled

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ORDERS = EXAMPLES / "orders" / "orders.proto"
JAVA_SERVED = ("grpc-java", "rest-jackson")


@pytest.fixture(scope="module")
def java() -> builds.Worker:
    worker = builds.workers()["java"]
    if worker.unavailable() and not os.environ.get("CI"):
        pytest.skip(f"the java worker cannot build here: {worker.unavailable()}")
    return worker


@pytest.fixture(scope="module")
def orders_variant(java) -> builds.Worker:
    variant = java.for_schema(compiled.descriptor_set(ORDERS)[0])
    variant.ensure_built()
    return variant


def _run(out: Path, contenders: str, *extra: str) -> subprocess.CompletedProcess:
    return run_cli("run", "--proto", str(ORDERS), "--method", "orders.Orders/Place", "--data-file",
                   str(EXAMPLES / "orders" / "requests.jsonl"), "--server-work", "50us", "--contender", contenders,
                   "-n", "30", "--warmup", "0s", "--warmup-max", "0", "--repeat", "1", "-o", str(out), *extra)


def _cells(out: Path) -> dict:
    return {(c.contender, c.client): c for c in rpcarena.load(out).cells}


def test_the_java_mechanisms_serve_a_user_schema_to_the_java_python_and_go_clients(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, ",".join(JAVA_SERVED), "--client", "java,py,go")
    assert done.returncode == 0, done.stderr
    assert "java worker for this schema: reused" in done.stderr  # the module's build, not a second one
    cells = _cells(out)
    assert sorted(cells) == sorted((c, client) for c in JAVA_SERVED for client in ("java", "py", "go"))
    for key, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {}), (key, cell.reason)


def test_the_java_clients_call_the_python_servers_of_a_user_schema(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, "grpc-py,rest-fastapi", "--client", "java")
    assert done.returncode == 0, done.stderr
    assert "java worker for this schema: reused" in done.stderr  # a client alone needs the variant too
    cells = _cells(out)
    assert sorted(cells) == [("grpc-py", "java"), ("rest-fastapi", "java")]
    for key, cell in cells.items():
        assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {}), (key, cell.reason)


def test_the_java_floor_echoes_a_user_schemas_bytes(orders_variant, tmp_path):
    out = tmp_path / "r.json"
    done = _run(out, "tcp-raw-java", "--client", "java")
    assert done.returncode == 0, done.stderr
    (cell,) = rpcarena.load(out).cells
    assert (cell.contender, cell.status, cell.calls, cell.errors) == ("tcp-raw-java", "ok", 30, {}), cell.reason


def test_a_stream_is_served_by_grpc_java_and_unsupported_in_rest_jackson(java, tmp_path):
    out = tmp_path / "r.json"
    done = run_cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", "ticks.Ticker/Follow",
                   "--fill", "strings=8B,repeated=4,seed=3,count=2", "--contender", "grpc-java,rest-jackson",
                   "--client", "java,py", "-n", "20", "--warmup", "0s", "--warmup-max", "0", "--repeat", "1",
                   "-o", str(out), timeout=600)
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    for key in (("grpc-java", "java"), ("grpc-java", "py")):
        assert (cells[key].status, cells[key].calls, cells[key].errors) == ("ok", 20, {}), cells[key].reason
    rest = [cell for (contender, _), cell in cells.items() if contender == "rest-jackson"]
    assert len(rest) == 2 and all(c.status == "unsupported" and "stream" in c.reason for c in rest)


WRONG_ANSWERS = """
import dataclasses, json, sys
from pathlib import Path
from rpcarena import workloads
from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.userschema.workload import UserWorkload, build

options = UserWorkload(proto=sys.argv[1], method="orders.Orders/Place", data='{"order_id": "A-1"}')
right = build(options)
workloads.WORKLOADS[right.id] = dataclasses.replace(right, reference=lambda request: {"order_id": "A-2"})
config = RunConfig(contenders=json.loads(sys.argv[3]), client_drivers=["java", "py"], workloads=[right.id], calls=5,
                   warmup_s=0, warmup_max_s=0, out=Path(sys.argv[2]), user_schema=options.to_json())
print(json.dumps([[c.contender, c.client, c.errors] for c in Arena(config, plans(config)).run().cells]))
"""


def test_the_java_client_counts_a_wrong_answer_and_a_java_server_answering_wrong_is_caught(orders_variant, tmp_path):
    """The servers answer "A-1" while the drivers expect "A-2": every call is a wrong answer, whichever
    client (Java or Python) calls whichever Java server."""
    done = subprocess.run([sys.executable, "-c", WRONG_ANSWERS, str(ORDERS), str(tmp_path / "r.json"),
                           json.dumps(list(JAVA_SERVED))], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    errors = json.loads(done.stdout.splitlines()[-1])
    assert sorted(map(tuple, ([c, client] for c, client, _ in errors))) == sorted(
        (c, client) for c in JAVA_SERVED for client in ("java", "py"))
    assert all(found == {"wrong_answer": 5} for _, _, found in errors), errors


def test_a_built_schema_is_reused_and_a_changed_one_is_a_new_variant(java, orders_variant, tmp_path):
    log = orders_variant.build_dir / "build.log"
    before = log.stat().st_mtime_ns
    again = java.for_schema(compiled.descriptor_set(ORDERS)[0])
    assert again.built() and again.build_dir == orders_variant.build_dir
    again.ensure_built()
    assert log.stat().st_mtime_ns == before  # not built again
    changed = tmp_path / "orders.proto"
    changed.write_text(ORDERS.read_text().replace("bool express = 5;", "bool express = 5;\n  int32 priority = 6;"))
    other = java.for_schema(compiled.descriptor_set(changed)[0])
    assert other.build_dir != orders_variant.build_dir and other.build_dir.parent == orders_variant.build_dir.parent
    assert not other.built()  # a changed schema is a variant of its own, built when a run needs it
    assert java.for_schema(None) is java


def test_the_java_contenders_without_a_user_form_say_so():
    schema.add_user(compiled.descriptor_set(ORDERS)[0])
    contenders = all_contenders()
    for name in ("http-javaser", "typed-json-java"):
        reason = contenders[name].unsupported("orders.Orders/Place")
        assert reason is not None and reason.startswith(f"{name} does not serve a user's schema yet: "), reason
    for name in (*JAVA_SERVED, "tcp-raw-java"):
        assert contenders[name].unsupported("orders.Orders/Place") is None, name
