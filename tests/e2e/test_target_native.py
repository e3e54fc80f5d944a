"""`rpcarena target --client go` (and `rust`): the native target drivers against servers rpcarena did not start.

grpcio's own health service (grpcio-health-checking) is a server rpcarena did not
write; its `Watch` is a server stream that never ends, measured from the published
health.proto alone. The HTTP server and the arena gRPC server run in this process
on ephemeral ports. Counts and shapes, never durations.
"""

from __future__ import annotations

from concurrent import futures

import pytest

from rpcarena.contenders import native as native_contenders
from rpcarena.record import hist
from rpcarena.results import load
from tests.conftest import cli
from tests.e2e.test_target import PROTO, Items, items, reflecting_grpc  # noqa: F401 (fixtures)
from tests.e2e.test_target_breadth import SEEN_METADATA, _tls_server, certs, grpc_tls, h2, http  # noqa: F401 (fixtures)

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
    done = cli("target", "--client", "go", "--grpc", address, "--method", "grpc.health.v1.Health/Watch",
               "--proto", proto, "--data", '{"service": "shop.Cart"}', "--stream-messages", "1",
               "--expect-json", "0.status=SERVING", "--calls", "60", "--clients", "2", *FAST,
               "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 60, {})
    assert cell.client_tool["name"] == "rpcarena-target-go"
    assert cell.messages == 60 and hist.decode(cell.message_latency_histogram).get_total_count() == 60


def test_the_python_client_leaves_a_stream_to_the_native_one(health, tmp_path):
    address, proto = health
    out = tmp_path / "t.json"
    done = cli("target", "--grpc", address, "--method", "grpc.health.v1.Health/Watch", "--proto", proto,
               "--data", '{"service": "shop.Cart"}', "--stream-messages", "1", "--calls", "10", *FAST,
               "--out", str(out))
    # nothing measured is an error (issue 28 item 3), and the cell that says why is kept
    assert done.returncode == 2 and "nothing measured" in done.stderr and "--client go" in done.stderr, done.stderr
    (cell,) = load(out).cells
    assert (cell.status, cell.client) == ("unsupported", "py")
    assert "--client go" in cell.reason


def test_unary_grpc_and_http_every_reply_checked(reflecting_grpc, items, tmp_path):  # noqa: F811
    out = tmp_path / "t.json"
    done = cli("target", "--client", "go", "--calls", "80", "--clients", "1,3", *FAST, "--out", str(out),
               "--name", "grpc", "--grpc", reflecting_grpc, "--method", "arena.Arena/Average", "--proto", PROTO,
               "--data", '{"values": [{{a}}, {{a}}]}', "--var", "a=2,6", "--expect-json", "value={{a}}",
               "--name", "http", "--http", items + "/items/{{id}}", "--var", "id=range:1:20",
               "--expect-json", "double={{twice}}", "--var", "twice=range:2:40:2")
    _ok(done)
    cells = load(out).cells
    assert [(c.contender, c.clients, c.status, c.calls, c.errors) for c in cells] == [
        (name, n, "ok", 80, {}) for n in (1, 3) for name in ("grpc", "http")]
    assert Items.seen == set(range(1, 21))


@pytest.mark.parametrize("client", ["go", "rust"])
def test_wrong_answers_are_counted_with_the_check_that_failed(items, tmp_path, client):  # noqa: F811
    out = tmp_path / "t.json"
    done = cli("target", "--client", client, "--http", items + "/items/{{id}}", "--var", "id=7,8",
               "--expect-json", "id=7", "--calls", "50", "--warmup", "0", "--out", str(out))
    assert "Traceback" not in done.stderr
    (cell,) = load(out).cells
    assert cell.calls == 25 and cell.errors["wrong_answer"] == 25
    assert cell.error_examples["wrong_answer"] == "id: got 8, want 7"


@pytest.mark.parametrize("client", ["go", "rust"])
def test_a_failing_first_call_is_refused_before_measuring(items, tmp_path, client):  # noqa: F811
    done = cli("target", "--client", client, "--http", items + "/nothing", "--calls", "10",
               "--out", str(tmp_path / "t.json"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "the first call failed (status_404" in done.stderr


def test_a_list_in_any_order(http, tmp_path):  # noqa: F811
    """/tags answers ["c", "b", "a"]: the same items in another order hold, another count does not."""
    out = tmp_path / "t.json"
    done = cli("target", "--client", "go", f"{http}/tags", "--expect-json", 'tags~=["a", "b", "c"]',
               "--calls", "30", *FAST, "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 30, {})
    repeated = cli("target", "--client", "go", f"{http}/tags", "--expect-json", 'tags~=["a", "b", "c", "c"]',
                   "--calls", "5", "--warmup", "0", "--out", str(out), "--force")
    assert repeated.returncode == 3 and "Traceback" not in repeated.stderr  # a wrong reply fails the gate
    assert 'tags: got ["c","b","a"], want ["a","b","c","c"] in any order' in repeated.stderr


def test_https_with_a_ca_insecure_and_a_client_certificate(certs, tmp_path):  # noqa: F811
    """The Go client verifies with --cacert, verifies nothing with --insecure, and presents --cert/--key;
    without the CA the system's do not know the server, and the first call says so."""
    pair = ("--cert", str(certs / "client.pem"), "--key", str(certs / "client.key"))
    server = _tls_server(certs, client_auth=True)
    url = f"https://127.0.0.1:{server.server_address[1]}/items/4"
    runs = {"ca": ("--cacert", str(certs / "ca.pem"), *pair), "insecure": ("--insecure", *pair), "system": pair}
    try:
        done = {name: cli("target", "--client", "go", url, *options, "--expect-json", "id=4", "--calls", "20",
                          *FAST, "--out", str(tmp_path / f"{name}.json"))
                for name, options in runs.items()}
    finally:
        server.shutdown()
        server.server_close()
    for name in ("ca", "insecure"):
        _ok(done[name])
        (cell,) = load(tmp_path / f"{name}.json").cells
        assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 20, {})
    assert done["system"].returncode == 2 and "the first call failed" in done["system"].stderr
    assert "certificate" in done["system"].stderr and "Traceback" not in done["system"].stderr


def test_grpc_over_mtls_with_metadata(grpc_tls, certs, tmp_path):  # noqa: F811
    """grpcs:// with the CA and a client pair, metadata seen by the server's interceptor; --insecure
    trusts the certificate the server presents."""
    pair = ("--cert", str(certs / "client.pem"), "--key", str(certs / "client.key"))
    call = ("target", "--client", "go", f"grpcs://{grpc_tls}", "--method", "arena.Arena/SayHello", "--proto", PROTO,
            "--data", '{"name": "tls"}', "--expect-json", "message=Hello tls", *pair)
    SEEN_METADATA.clear()
    for n, options in enumerate((("--cacert", str(certs / "ca.pem"), "--metadata", "x-team: go"), ("--insecure",))):
        out = tmp_path / f"{n}.json"
        done = cli(*call, *options, "--calls", "30", *FAST, "--out", str(out))
        _ok(done)
        (cell,) = load(out).cells
        assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 30, {})
    assert ("x-team", "go") in SEEN_METADATA


def test_http2_over_tls_by_alpn(h2, certs, tmp_path):  # noqa: F811
    """h2 negotiated with a server verified by --cacert; a server that answers in HTTP/1.1 is refused."""
    out = tmp_path / "t.json"
    done = cli("target", "--client", "go", h2["tls"], "--http2", "--cacert", str(certs / "ca.pem"),
               "--expect-json", 'version="2"', "--calls", "20", *FAST, "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.status, cell.client, cell.calls, cell.errors) == ("ok", "go", 20, {})
    one = _tls_server(certs, client_auth=False)  # http.server: HTTP/1.1 only, whatever ALPN offers
    try:
        refused = cli("target", "--client", "go", f"https://127.0.0.1:{one.server_address[1]}/items/1",
                      "--http2", "--cacert", str(certs / "ca.pem"), "--calls", "5", "--out",
                      str(tmp_path / "x.json"))
    finally:
        one.shutdown()
        one.server_close()
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "--http2 asked, the server answered in HTTP/1.1" in refused.stderr


def test_an_unknown_client_is_refused(items, tmp_path):  # noqa: F811
    done = cli("target", "--debug-mode", "--client", "cobol", "--http", items + "/items/1", "--out",
               str(tmp_path / "t.json"))
    assert done.returncode == 2 and "bad --client 'cobol' for targets: use one of py, go, rust" in done.stderr
