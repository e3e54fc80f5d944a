"""`rpcarena target` against servers started by hand (outside rpcarena), on ephemeral ports.

The built-in gRPC, FastAPI and RPyC servers are started here as plain processes
(`python -m rpcarena.python_server.serve ... --port 0`), a small HTTP server and a gRPC server
with reflection run in this test process; rpcarena only gets addresses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent import futures
from http.server import BaseHTTPRequestHandler

import pytest

from rpcarena.commands.target import TargetOption
from rpcarena.process.children import free_port
from rpcarena.results import load
from rpcarena.targets import template
from tests.conftest import ROOT, cli
from tests.helpers.http_server import QuietHTTPServer

PROTO = str(ROOT / "proto" / "arena.proto")
FAST = ("--warmup", "0.2s")


class External:
    """A server process started by hand: its address and pid."""

    def __init__(self, contender: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "rpcarena.python_server.serve", contender, "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = json.loads(self.proc.stdout.readline())
        self.address, self.pid = f"127.0.0.1:{ready['port']}", self.proc.pid

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture(scope="module")
def servers():
    started = {name: External(name) for name in ("grpc-py", "rest-fastapi", "rpyc")}
    yield started
    for server in started.values():
        server.stop()


class Items(BaseHTTPRequestHandler):
    """GET /items/ID -> {"id": ID, "double": 2*ID}; remembers which ids it was asked for."""

    protocol_version = "HTTP/1.1"
    seen: set = set()

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        item = self.path.rsplit("/", 1)[-1]
        if not self.path.startswith("/items/") or not item.isdigit():
            self._reply(404, {"error": "no such item"})
            return
        self.seen.add(int(item))
        self._reply(200, {"id": int(item), "double": 2 * int(item)})

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def items():
    Items.seen = set()
    server = QuietHTTPServer(("127.0.0.1", 0), Items)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def reflecting_grpc():
    """The arena service with server reflection on (grpc-py itself has none)."""
    import grpc
    from grpc_reflection.v1alpha import reflection

    from rpcarena.contenders.grpc_py import handlers, logic, stream_logic
    from rpcarena.protocol import schema

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handlers(grpc, logic(), stream_logic()),))
    reflection.enable_server_reflection([schema.SERVICE, reflection.SERVICE_NAME], server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0)


def _ok(done) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_grpc_from_proto_http_and_rpyc_side_by_side(servers, tmp_path):
    grpc, rest, rpyc = servers["grpc-py"], servers["rest-fastapi"], servers["rpyc"]
    out = tmp_path / "t.json"
    done = cli("target", "--calls", "120", *FAST, "--clients", "1,2", "--out", str(out),
               "--name", "grpc", "--grpc", grpc.address, "--method", "arena.Arena/SayHello", "--proto", PROTO,
               "--data", '{"name": "{{who}}"}', "--var", "who=ann,bob", "--expect-json", "message=Hello {{who}}",
               "--server-pid", str(grpc.pid),
               "--name", "rest", "--http", f"http://{rest.address}/arena/SayHello", "--body", '{"name": "x"}',
               "--expect-status", "200", "--expect-json", "message=Hello x",
               "--name", "rpyc", "--rpyc", rpyc.address, "--rpyc-method", "SayHello", "--args", '["x"]',
               "--expect-json", "$=Hello x")
    _ok(done)
    for name in ("grpc", "rest", "rpyc", "arena.Arena/SayHello", "POST /arena/SayHello"):
        assert name in done.stdout
    results = load(out)
    assert [(c.contender, c.protocol, c.clients) for c in results.cells] == [
        (name, kind, n) for n in (1, 2) for name, kind in (("grpc", "grpc"), ("rest", "http"), ("rpyc", "rpyc"))]
    for cell in results.cells:
        assert (cell.status, cell.calls, cell.errors, cell.language) == ("ok", 120, {}, "external")
        assert cell.latency["count"] == 120
    grpc_cell = results.cells[0]
    assert grpc_cell.server_cpu_us_per_call is not None and grpc_cell.server_peak_rss_bytes > 0
    assert results.cells[1].server_cpu_us_per_call is None  # no --server-pid: not measured
    assert [t["name"] for t in results.targets] == ["grpc", "rest", "rpyc"]


def test_grpc_schema_by_reflection(reflecting_grpc, tmp_path):
    out = tmp_path / "t.json"
    done = cli("target", "--grpc", reflecting_grpc, "--method", "arena.Arena/Average",
               "--data", '{"values": [{{a}}, {{a}}]}', "--var", "a=2,6", "--expect-json", "value={{a}}",
               "--calls", "40", *FAST, "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.status, cell.calls, cell.errors) == ("ok", 40, {})


def test_templating_renders_distinct_requests(items, tmp_path):
    out = tmp_path / "t.json"
    done = cli("target", "--http", items + "/items/{{id}}", "--var", "id=range:1:25",
               "--expect-json", "id={{id}}", "--expect-json", "double={{twice}}",
               "--var", "twice=range:2:50:2", "--calls", "100", *FAST, "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.calls, cell.errors) == (100, {})
    assert Items.seen == set(range(1, 26))
    assert load(out).targets[0]["distinct_requests"] == 25


def test_a_failed_check_is_a_wrong_answer(items, tmp_path):
    """Half the replies wrong: the cell fails, the command exits 3 (a gate), the example says what differed;
    per-call figures are per call sent."""
    out = tmp_path / "t.json"
    done = cli("target", "--http", items + "/items/{{id}}", "--var", "id=7,8", "--expect-json", "id=7",
               "--calls", "50", "--warmup", "0", "--clients", "1,2", "--fail-fast", "--out", str(out))
    assert done.returncode == 3, done.stderr
    assert "above --max-error-rate 0" in done.stderr and "Traceback" not in done.stderr
    (cell,) = load(out).cells  # --fail-fast: the cell at 2 clients is not measured
    assert cell.status == "failed" and "wrong_answer" in cell.reason
    assert cell.calls + cell.errors["wrong_answer"] == 50 and cell.errors["wrong_answer"] >= 24
    assert cell.error_examples["wrong_answer"] == "--expect-json id=7: at id expected 7, got 8"
    assert cell.calls_sent == 50 and cell.throughput_per_s == 50 / cell.wall_s
    assert cell.client_cpu_us_per_call == (cell.client_cpu_user_s + cell.client_cpu_sys_s) * 1e6 / 50
    allowed = cli("target", "--http", items + "/items/{{id}}", "--var", "id=7,8", "--expect-json", "id=7",
                  "--calls", "50", "--warmup", "0", "--max-error-rate", "60%", "--out", str(out), "--force")
    _ok(allowed)
    assert load(out).cells[0].status == "ok"


def test_open_loop_against_a_target(items, tmp_path):
    out = tmp_path / "t.json"
    done = cli("target", "--http", items + "/items/{{id}}", "--var", "id=1,2,3", "--rate", "200",
               "--calls", "100", "--clients", "2", *FAST, "--out", str(out))
    _ok(done)
    (cell,) = load(out).cells
    assert (cell.rate_per_s, cell.calls, cell.errors) == (200, 100, {})
    assert cell.latency_uncorrected_histogram is not None


@pytest.fixture(scope="module")
def bad_proto(tmp_path_factory):
    path = tmp_path_factory.mktemp("proto") / "bad.proto"
    path.write_text('syntax = "proto3";\nmessage X { int32 a = 1 }\n')
    return str(path)


BAD = {
    "down": (lambda s, p: ["--grpc", f"127.0.0.1:{free_port('127.0.0.1')}", "--method", "arena.Arena/Void",
                           "--proto", PROTO],
             "is down"),
    "bad proto": (lambda s, p: ["--grpc", s["grpc-py"].address, "--method", "arena.Arena/Void", "--proto", p],
                  "cannot compile"),
    "unknown method": (lambda s, p: ["--grpc", s["grpc-py"].address, "--method", "arena.Arena/Nope",
                                     "--proto", PROTO], "no method 'Nope'"),
    "unknown service": (lambda s, p: ["--grpc", s["grpc-py"].address, "--method", "shop.Cart/Add",
                                      "--proto", PROTO], "unknown service"),
    "no reflection": (lambda s, p: ["--grpc", s["grpc-py"].address, "--method", "arena.Arena/Void"], "--proto"),
    "unknown variable": (lambda s, p: ["--http", f"http://{s['rest-fastapi'].address}/arena/SayHello",
                                       "--body", '{"name": "{{who}}"}'], "no --var who"),
    "malformed var": (lambda s, p: ["--http", f"http://{s['rest-fastapi'].address}/x/{{{{id}}}}",
                                    "--var", "id=range:1"], "bad --var"),
    "unknown rpyc method": (lambda s, p: ["--rpyc", s["rpyc"].address, "--rpyc-method", "Nope"], "no method"),
    "address missing": (lambda s, p: ["--method", "arena.Arena/Void"], "--grpc HOST:PORT"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line(case, servers, bad_proto, tmp_path):
    args, needle = BAD[case]
    done = cli("target", *args(servers, bad_proto), "--calls", "5", "--warmup", "0",
               "--out", str(tmp_path / "t.json"))
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "t.json").exists()  # checked before measuring


def test_grammar_groups_targets():
    import argparse

    parser = argparse.ArgumentParser()
    for option in ("--grpc", "--http", "--name", "--var", "--method"):
        parser.add_argument(option, action=TargetOption, default=argparse.SUPPRESS)
    args = parser.parse_args(["--name", "a", "--grpc", "h:1", "--method", "s.S/M", "--var", "x=1", "--var", "y=2",
                              "--name", "b", "--http", "http://h/", "--grpc", "h:2"])
    assert args.targets == [
        {"name": "a", "kind": "grpc", "address": "h:1", "method": "s.S/M", "var": ["x=1", "y=2"]},
        {"name": "b", "kind": "http", "address": "http://h/"},
        {"kind": "grpc", "address": "h:2"}]


def test_bindings_cycle_to_the_longest_variable():
    ids, tags = template.parse_var("id=range:1:4"), template.parse_var("tag=a,b")
    assert template.bindings([ids, tags], limit=100) == [
        {"id": 1, "tag": "a"}, {"id": 2, "tag": "b"}, {"id": 3, "tag": "a"}, {"id": 4, "tag": "b"}]
    assert len(template.bindings([ids], limit=2)) == 2
    assert template.render_json('{"q": "{{tag}}", "n": {{id}}}', {"tag": 'say "hi"', "id": 3}, "--data") == {
        "q": 'say "hi"', "n": 3}


def test_find_max_against_a_target(items, tmp_path):
    """The same bisection as for built-in contenders, on a server rpcarena did not start."""
    out = tmp_path / "fm.json"
    done = cli("target", "--http", items + "/items/{{id}}", "--var", "id=1,2,3", "--find-max",
               "--slo", "p99<2s", "--duration", "0.4s", "--warmup", "0", "--out", str(out))
    _ok(done)
    results = load(out)
    (answer,) = results.find_max
    assert len(answer["probes"]) == 6 and answer["max_rate_per_s"] > 0
    probes = [c for c in results.cells if c.rate_per_s]
    assert len(probes) == 6 and all(c.language == "external" for c in probes)
    assert "max" in done.stdout and "calls/s meeting" in done.stdout
