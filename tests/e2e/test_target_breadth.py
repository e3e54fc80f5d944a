"""`rpcarena target`'s gates and breadth against real servers on ephemeral loopback ports.

A small HTTP server runs in this test process (plain or TLS with certificates
made here by the openssl CLI), a gRPC server with TLS too; rpcarena only gets
their addresses. Counts and shapes are asserted, never durations, except that
no latency sample may exceed --timeout (the clients' own rule).
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
import time
from concurrent import futures
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from rpcarena.results import load
from rpcarena.targets import checks
from tests.conftest import ROOT, cli
from tests.helpers.http_server import QuietHTTPServer
from tests.helpers.processes import end_session

PROTO = str(ROOT / "proto" / "arena.proto")
FAST = ("--warmup", "0.1s")
DRIBBLES = 6  # pieces of a slow reply's body, 0.6 ms apart: ~3.6 ms in all, each read well under 2 ms


class Service(BaseHTTPRequestHandler):
    """GET /items/N -> {"id": N}; GET /slow/N: an odd N dribbles its body over ~3.6 ms (each read
    well under 2 ms); GET /tags -> a list in a fixed, unsorted order; POST /echo -> the body back."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # each piece of a dribbled body leaves at once
    bodies: list = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        part, _, item = self.path.strip("/").partition("/")
        if part == "tags":
            self._reply({"tags": ["c", "b", "a"]})
        elif part == "slow" and item.isdigit():
            self._reply({"id": int(item)}, dribble_s=0.0006 if int(item) % 2 else 0.0)
        else:
            self._reply({"id": int(item) if item.isdigit() else item})

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.bodies.append(json.loads(body))
        self._reply(json.loads(body))

    def _reply(self, body: dict, dribble_s: float = 0.0) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        for k in range(DRIBBLES if dribble_s else 0):
            time.sleep(dribble_s)
            self.wfile.write(data[k * len(data) // DRIBBLES:(k + 1) * len(data) // DRIBBLES])
        if not dribble_s:
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _serve(context: ssl.SSLContext | None = None):
    server = QuietHTTPServer(("127.0.0.1", 0), Service)  # a client that gave up on a slow reply resets it
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def http():
    Service.bodies = []
    server = _serve()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and localhost, and a client certificate, all signed by it."""
    folder = tmp_path_factory.mktemp("certs")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=rpcarena test CA")
    (folder / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name in ("server", "client"):
        openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "2", "-extfile", "san.ext")
    return folder


def _tls_server(certs: Path, client_auth: bool):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.pem", certs / "server.key")
    if client_auth:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(certs / "ca.pem")
    return _serve(context)


def _ok(done) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def _one_line(done, needle: str, code: int = 2) -> None:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == code and len(lines) == 1 and needle in lines[0], done.stderr


@pytest.mark.parametrize("client", ["py", "rust"])
def test_a_slow_server_trips_the_timeout(http, tmp_path, client):
    """Odd ids take ~3 ms, each read under 2 ms (httpx's deadline is per read): with --timeout 2ms
    they are errors of kind timeout, never samples, and no sample is over 2 ms."""
    out = tmp_path / "t.json"
    done = cli("target", "--client", client, f"{http}/slow/{{{{id}}}}", "--var", "id=2,1",
               "--expect-json", "id={{id}}", "--timeout", "2ms", "--calls", "60", *FAST, "--max-error-rate", "100%",
               "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert set(cell.errors) == {"timeout"} and cell.errors["timeout"] >= 30
    assert cell.calls + cell.errors["timeout"] == cell.calls_sent == 60
    assert all(ns <= 2_000_000 for _, ns in cell.samples_ns)
    assert "--timeout" in cell.error_examples["timeout"] or "timed out" in cell.error_examples["timeout"].lower()


def test_a_timeout_below_a_millisecond(http, tmp_path):
    """--timeout 500us parses and is what the clients use (every ~3.6 ms reply is a timeout); 50us is refused."""
    out = tmp_path / "t.json"
    done = cli("target", f"{http}/slow/1", "--timeout", "500us", "--calls", "10", "--warmup", "0",
               "--out", str(out))
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    (cell,) = load(out).cells
    assert (cell.calls, cell.errors) == (0, {"timeout": 10}) and load(out).config["timeout_ms"] == 0.5
    refused = cli("target", f"{http}/items/1", "--timeout", "50us", "--out", str(tmp_path / "r.json"))
    _one_line(refused, "100us")


def test_positional_target_and_a_list_in_any_order(http, tmp_path):
    out = tmp_path / "t.json"
    done = cli("target", f"{http}/tags", "--expect-json", 'tags~=["a", "b", "c"]', "--calls", "30", *FAST,
               "--out", str(out))
    _ok(done)
    results = load(out)
    (cell,) = results.cells
    assert (cell.status, cell.calls, cell.errors) == ("ok", 30, {})
    assert results.targets[0]["kind"] == "http" and results.targets[0]["call"] == "GET /tags"
    assert cell.placement["policy"] == "none" and cell.placement["server_cpus"] is None
    assert cell.placement["clients_ran_on"]
    in_order = cli("target", f"{http}/tags", "--expect-json", 'tags=["a", "b", "c"]', "--calls", "5",
                   "--warmup", "0", "--out", str(out), "--force")
    # a wrong first reply fails the gate (3), as the measurement would
    assert in_order.returncode == 3 and 'expected ["a", "b", "c"], got ["c", "b", "a"]' in in_order.stderr


def test_checks_compare_a_list_in_any_order_with_repeats():
    path, value, mode = checks.parse('xs~=[1, 2, 2]')
    (rendered,) = [checks.render([(path, value, mode)], {})]
    assert rendered == [["xs", [1, 2, 2], checks.ANY_ORDER]]
    assert checks.holds({"xs": [2, 1, 2]}, rendered)
    assert not checks.holds({"xs": [2, 1, 1]}, rendered) and not checks.holds({"xs": [1, 2]}, rendered)
    assert checks.explain({"xs": [1]}, rendered) == "--expect-json xs~=[1, 2, 2]: at xs expected [1, 2, 2], got [1]"


def test_requests_from_a_data_file(http, tmp_path):
    lines = tmp_path / "requests.jsonl"
    lines.write_text('{"n": 1}\n{"n": 2}\n\n{"n": {{k}}}\n')
    out = tmp_path / "t.json"
    done = cli("target", "--http", f"{http}/echo", "--data-file", str(lines), "--var", "k=3",
               "--calls", "30", *FAST, "--out", str(out))
    _ok(done)
    assert load(out).targets[0]["distinct_requests"] == 3
    assert {body["n"] for body in Service.bodies} == {1, 2, 3}
    (tmp_path / "bad.jsonl").write_text('{"n": 1}\nnot json\n')
    bad = cli("target", "--http", f"{http}/echo", "--data-file", str(tmp_path / "bad.jsonl"),
              "--out", str(tmp_path / "b.json"))
    _one_line(bad, "line 2 is not JSON")


def test_a_server_pid_must_own_the_listening_socket(tmp_path):
    """Another process's pid (this test's) is refused, naming the one that listens; the server's is taken."""
    argv = [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(tmp_path)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = server.stdout.readline().split(" port ")[1].split()[0]
        url = f"http://127.0.0.1:{port}/"
        wrong = cli("target", url, "--server-pid", str(os.getpid()), "--calls", "5",
                    "--out", str(tmp_path / "w.json"))
        right = cli("target", url, "--server-pid", str(server.pid), "--calls", "20", *FAST,
                    "--out", str(tmp_path / "r.json"))
    finally:
        server.kill()
        server.wait(10)
    _one_line(wrong, f"does not listen on port {port}")
    assert f"pid {server.pid}" in wrong.stderr  # the process that does listen
    _ok(right)
    results = load(tmp_path / "r.json")
    assert results.cells[0].server_cpu_us_per_call is not None and results.targets[0]["server_pid"] == server.pid


def test_https_with_a_ca_and_insecure(certs, tmp_path):
    server = _tls_server(certs, client_auth=False)
    url = f"https://127.0.0.1:{server.server_address[1]}/items/4"
    try:
        verified = cli("target", url, "--cacert", str(certs / "ca.pem"), "--expect-json", "id=4",
                       "--calls", "20", *FAST, "--out", str(tmp_path / "a.json"))
        insecure = cli("target", url, "--insecure", "--calls", "20", *FAST, "--out", str(tmp_path / "b.json"))
        unverified = cli("target", url, "--calls", "5", "--warmup", "0", "--out", str(tmp_path / "c.json"))
    finally:
        server.shutdown()
        server.server_close()
    _ok(verified)
    _ok(insecure)
    assert load(tmp_path / "a.json").cells[0].calls == 20 and load(tmp_path / "b.json").cells[0].calls == 20
    _one_line(unverified, "--cacert with the server's CA")  # the system's CAs do not know the test CA


def test_https_with_a_client_certificate(certs, tmp_path):
    server = _tls_server(certs, client_auth=True)
    url = f"https://127.0.0.1:{server.server_address[1]}/items/5"
    try:
        mtls = cli("target", "--http", url, "--cacert", str(certs / "ca.pem"), "--cert",
                   str(certs / "client.pem"), "--key", str(certs / "client.key"), "--expect-json", "id=5",
                   "--calls", "20", *FAST, "--out", str(tmp_path / "a.json"))
        half = cli("target", "--http", url, "--cacert", str(certs / "ca.pem"), "--cert",
                   str(certs / "client.pem"), "--out", str(tmp_path / "b.json"))
    finally:
        server.shutdown()
        server.server_close()
    _ok(mtls)
    assert load(tmp_path / "a.json").cells[0].calls == 20
    _one_line(half, "--cert FILE and --key FILE")


SEEN_METADATA: set = set()


@pytest.fixture(scope="module")
def grpc_tls(certs):
    """The arena service over TLS, requiring a client certificate signed by the test CA; it notes
    the metadata of every call."""
    import grpc

    from rpcarena.contenders.grpc_py import handlers, logic, stream_logic

    class Noting(grpc.ServerInterceptor):
        def intercept_service(self, continuation, details):
            SEEN_METADATA.update((m.key, m.value) for m in details.invocation_metadata)
            return continuation(details)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), interceptors=[Noting()])
    server.add_generic_rpc_handlers((handlers(grpc, logic(), stream_logic()),))
    pair = ((certs / "server.key").read_bytes(), (certs / "server.pem").read_bytes())
    credentials = grpc.ssl_server_credentials([pair], root_certificates=(certs / "ca.pem").read_bytes(),
                                              require_client_auth=True)
    port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0)


def test_grpc_over_mtls_with_metadata(grpc_tls, certs, tmp_path):
    out = tmp_path / "t.json"
    done = cli("target", f"grpcs://{grpc_tls}", "--method", "arena.Arena/SayHello", "--proto", PROTO,
               "--data", '{"name": "tls"}', "--expect-json", "message=Hello tls", "--metadata", "x-team: arena",
               "--cacert", str(certs / "ca.pem"), "--cert", str(certs / "client.pem"),
               "--key", str(certs / "client.key"), "--calls", "30", *FAST, "--out", str(out))
    _ok(done)
    results = load(out)
    assert (results.cells[0].calls, results.cells[0].errors) == (30, {})
    assert results.targets[0]["tls"]["cacert"] == str(certs / "ca.pem")
    assert ("x-team", "arena") in SEEN_METADATA
    insecure = cli("target", f"grpcs://{grpc_tls}", "--method", "arena.Arena/SayHello", "--proto", PROTO,
                   "--insecure", "--cert", str(certs / "client.pem"), "--key", str(certs / "client.key"),
                   "--calls", "10", "--warmup", "0", "--out", str(tmp_path / "i.json"))
    _ok(insecure)  # the certificate the server presents, trusted as it is
    plaintext = cli("target", f"grpc://{grpc_tls}", "--method", "arena.Arena/SayHello", "--proto", PROTO,
                    "--calls", "5", "--warmup", "0", "--timeout", "2s", "--out", str(tmp_path / "p.json"))
    assert plaintext.returncode != 0 and "Traceback" not in plaintext.stderr


VERSION_APP = '''
async def app(scope, receive, send):
    body = b'{"version": "%s"}' % scope["http_version"].encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
'''


@pytest.fixture(scope="module")
def h2(certs, tmp_path_factory):
    """hypercorn (HTTP/2 by prior knowledge on one port, by ALPN over TLS on another), answering its version."""
    from rpcarena.process.children import free_port

    folder = tmp_path_factory.mktemp("h2")
    (folder / "version_app.py").write_text(VERSION_APP)
    plain, tls = free_port("127.0.0.1"), free_port("127.0.0.1")
    hypercorn = [sys.executable, "-m", "hypercorn", "version_app:app"]
    # each in a session of its own: hypercorn serves from a worker process it spawns, which must go too
    procs = [subprocess.Popen([*hypercorn, "--bind", f"127.0.0.1:{plain}"], cwd=folder, stderr=subprocess.DEVNULL,
                              start_new_session=True),
             subprocess.Popen([*hypercorn, "--bind", f"127.0.0.1:{tls}", "--certfile", str(certs / "server.pem"),
                               "--keyfile", str(certs / "server.key")], cwd=folder, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    try:
        for port in (plain, tls):
            _wait_for(port)
        yield {"plain": f"http://127.0.0.1:{plain}/v", "tls": f"https://127.0.0.1:{tls}/v"}
    finally:
        for proc in procs:
            end_session(proc)


def _wait_for(port: int) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def test_http2_by_prior_knowledge_and_by_alpn(h2, certs, tmp_path):
    ca = ("--cacert", str(certs / "ca.pem"))
    for n, (url, extra) in enumerate(((h2["plain"], ()), (h2["tls"], ca))):
        done = cli("target", url, "--http2", *extra, "--expect-json", 'version="2"', "--calls", "20", *FAST,
                   "--out", str(tmp_path / f"{n}.json"))
        _ok(done)
        results = load(tmp_path / f"{n}.json")
        assert (results.cells[0].calls, results.targets[0]["http2"]) == (20, True)
    one = _tls_server(certs, client_auth=False)  # http.server: HTTP/1.1 only, whatever ALPN offers
    try:
        refused = cli("target", f"https://127.0.0.1:{one.server_address[1]}/items/1", "--http2", *ca,
                      "--calls", "5", "--out", str(tmp_path / "x.json"))
    finally:
        one.shutdown()
        one.server_close()
    assert refused.returncode == 2 and "http_version" in refused.stderr and "HTTP/1.1" in refused.stderr
