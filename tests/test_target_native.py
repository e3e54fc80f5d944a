"""`rpcarena target --client go` (and `rust`): the native target drivers against servers rpcarena did not start.

grpcio's own health service (grpcio-health-checking) is a server rpcarena did not
write; its `Watch` is a server stream that never ends, measured from the published
health.proto alone. The HTTP server and the arena gRPC server run in this process
on ephemeral ports. Counts and shapes, never durations.
"""

from __future__ import annotations

from concurrent import futures

import pytest
from tests.conftest import run_cli
from tests.test_target import PROTO, Items, items, reflecting_grpc  # noqa: F401 (fixtures)

from rpcarena.analysis import hist
from rpcarena.contenders import native as native_contenders
from rpcarena.results import load

FAST = ("--warmup", "0.2s")
# grpc/health/v1/health.proto as published by the gRPC project (comments left out)
HEALTH_PROTO = """syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse {
  enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
  ServingStatus status = 1;
}
message HealthListRequest {}
message HealthListResponse { map<string, HealthCheckResponse> statuses = 1; }
service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc List(HealthListRequest) returns (HealthListResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}
"""

pytestmark = pytest.mark.skipif(
    "go" not in native_contenders.workers() or bool(native_contenders.workers()["go"].unavailable()),
    reason="the Go worker cannot be built here")


@pytest.fixture
def health(tmp_path):
    """grpcio's health servicer: `shop.Cart` SERVING, on an ephemeral port; and its .proto."""
    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    # its default non-blocking Watch stops answering once two connections open and cancel streams
    # together (grpcio 1.85); the blocking one holds a thread per open stream
    servicer = health.HealthServicer(experimental_non_blocking=False)
    servicer.set("shop.Cart", health_pb2.HealthCheckResponse.SERVING)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    proto = tmp_path / "health.proto"
    proto.write_text(HEALTH_PROTO)
    yield f"127.0.0.1:{port}", str(proto)
    servicer.enter_graceful_shutdown()
    server.stop(0)


def _ok(done) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_server_stream_of_a_server_rpcarena_did_not_write_from_its_proto(health, tmp_path):
    address, proto = health
    out = tmp_path / "t.json"
    done = run_cli("target", "--client", "go", "--grpc", address, "--method", "grpc.health.v1.Health/Watch",
                   "--proto", proto, "--data", '{"service": "shop.Cart"}', "--stream-messages", "1",
                   "--expect-json", "0.status=SERVING", "--calls", "60", "--clients", "2", *FAST,
                   "--out", str(out), timeout=300)
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 60, {})
    assert cell.client_tool["name"] == "rpcarena-target-go"
    assert cell.messages == 60 and hist.decode(cell.message_latency_histogram).get_total_count() == 60


def test_the_python_client_leaves_a_stream_to_the_native_one(health, tmp_path):
    address, proto = health
    out = tmp_path / "t.json"
    done = run_cli("target", "--grpc", address, "--method", "grpc.health.v1.Health/Watch", "--proto", proto,
                   "--data", '{"service": "shop.Cart"}', "--stream-messages", "1", "--calls", "10", *FAST,
                   "--out", str(out), timeout=120)
    _ok(done)  # a cell it cannot measure is no failure of the run
    (cell,) = load(out).cells
    assert (cell.status, cell.client) == ("unsupported", "py")
    assert "--client go" in cell.reason


def test_unary_grpc_and_http_every_reply_checked(reflecting_grpc, items, tmp_path):  # noqa: F811
    out = tmp_path / "t.json"
    done = run_cli("target", "--client", "go", "--calls", "80", "--clients", "1,3", *FAST, "--out", str(out),
                   "--name", "grpc", "--grpc", reflecting_grpc, "--method", "arena.Arena/Average", "--proto", PROTO,
                   "--data", '{"values": [{{a}}, {{a}}]}', "--var", "a=2,6", "--expect-json", "value={{a}}",
                   "--name", "http", "--http", items + "/items/{{id}}", "--var", "id=range:1:20",
                   "--expect-json", "double={{twice}}", "--var", "twice=range:2:40:2", timeout=300)
    _ok(done)
    cells = load(out).cells
    assert [(c.contender, c.clients, c.status, c.calls, c.errors) for c in cells] == [
        (name, n, "ok", 80, {}) for n in (1, 3) for name in ("grpc", "http")]
    assert Items.seen == set(range(1, 21))


@pytest.mark.parametrize("client", ["go", "rust"])
def test_wrong_answers_are_counted_with_the_check_that_failed(items, tmp_path, client):  # noqa: F811
    out = tmp_path / "t.json"
    done = run_cli("target", "--client", client, "--http", items + "/items/{{id}}", "--var", "id=7,8",
                   "--expect-json", "id=7", "--calls", "50", "--warmup", "0", "--out", str(out), timeout=300)
    assert "Traceback" not in done.stderr
    (cell,) = load(out).cells
    assert cell.calls == 25 and cell.errors["wrong_answer"] == 25
    assert cell.error_examples["wrong_answer"] == "id: got 8, want 7"


@pytest.mark.parametrize("client", ["go", "rust"])
def test_a_failing_first_call_is_refused_before_measuring(items, tmp_path, client):  # noqa: F811
    done = run_cli("target", "--client", client, "--http", items + "/nothing", "--calls", "10",
                   "--out", str(tmp_path / "t.json"), timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "the first call failed (status_404" in done.stderr


def test_what_only_the_python_client_checks_is_not_measured_by_go(items, tmp_path):  # noqa: F811
    """A list compared in any order is checked by the Python client alone: the go cell says so,
    and is not measured with a check left out."""
    out = tmp_path / "t.json"
    run_cli("target", "--client", "go", "--http", items + "/items/1", "--expect-json", "tags~=[1, 2]",
            "--calls", "10", *FAST, "--out", str(out), timeout=120)
    (cell,) = load(out).cells
    assert cell.status == "unsupported" and "any order" in cell.reason and "--client py" in cell.reason


def test_an_unknown_client_is_refused(items, tmp_path):  # noqa: F811
    done = run_cli("target", "--client", "cobol", "--http", items + "/items/1", "--out", str(tmp_path / "t.json"),
                   timeout=120)
    assert done.returncode == 2 and "bad --client 'cobol' for targets: use one of py, go, rust" in done.stderr
