"""`rpcarena target` as users of ghz, k6 and wrk tried it (issue 28): each defect they met, against real
servers on ephemeral loopback ports. Counts, exit codes and the lines printed; never durations."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rpcarena.analysis import slo
from rpcarena.config import RunConfig
from rpcarena.contenders import native as native_contenders
from rpcarena.errors import Interrupted
from rpcarena.orchestration.findmax import find_max
from rpcarena.process.children import free_port
from rpcarena.report import interop
from rpcarena.results import load
from tests.conftest import ROOT, FakeCells, cli, fake_plans
from tests.e2e import test_target_breadth as breadth
from tests.helpers.processes import end_session

FAST = ("--warmup", "0.1s")
FIXTURE = ROOT / "tests" / "fixtures" / "results_usp_int32_small.json"
KEEP_ALIVE_LIMIT = 5  # requests per connection, as Node's maxRequestsPerSocket or nginx's keepalive_requests


def _native(client: str) -> bool:
    worker = native_contenders.workers().get(client)
    return worker is not None and not worker.unavailable()


CLIENTS = [pytest.param(c, marks=pytest.mark.skipif(c != "py" and not _native(c), reason=f"no {c} worker here"))
           for c in ("py", "go", "rust")]


class Limited(BaseHTTPRequestHandler):
    """GET /n -> {"ok": true}; the KEEP_ALIVE_LIMIT-th reply on a connection says `Connection: close`
    and ends it, as a server's keep-alive limit does."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.served = 0

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.served += 1
        data = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        if self.served >= KEEP_ALIVE_LIMIT:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class Wrong(BaseHTTPRequestHandler):
    """GET /always -> {"ok": false}; GET /alternate -> {"ok": true} and {"ok": false} in turn."""

    protocol_version = "HTTP/1.1"
    turn = 0
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        with self.lock:
            ok = self.right()
        data = json.dumps({"ok": ok}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def right(self) -> bool:
        Wrong.turn += 1
        return self.path == "/alternate" and Wrong.turn % 2 == 0

    def log_message(self, *args: object) -> None:
        pass


def _serve(handler: type[BaseHTTPRequestHandler]):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def limited():
    server = _serve(Limited)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("client", CLIENTS)
def test_a_keep_alive_limit_is_not_a_failed_call(limited, tmp_path, client):
    """Item 1: `Connection: close` every 5 calls; every client reconnects and counts every reply."""
    out = tmp_path / "t.json"
    done = cli("target", f"{limited}/n", "--client", client, "--expect-json", "ok=true", "--calls", "60",
               "--clients", "2", *FAST, "--out", str(out))
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    assert (cell.status, cell.calls, cell.errors) == ("ok", 60, {})


@pytest.fixture
def wrong():
    server = _serve(Wrong)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _target(url: str, client: str, tmp_path, *more: str):
    return cli("target", url, "--client", client, "--expect-json", "ok=true", "--calls", "40", *FAST,
               "--out", str(tmp_path / "t.json"), "--force", *more)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_server_always_wrong_fails_the_gate(wrong, tmp_path, client):
    """Item 2: a wrong server is a failed gate (3), not bad input (2), whichever call the check hits."""
    done = _target(f"{wrong}/always", client, tmp_path)
    assert done.returncode == 3 and "the first reply fails its check" in done.stderr, done.stderr
    for _ in range(2):  # wrong on every other call: the first call is right or wrong, the gate says 3 alike
        assert _target(f"{wrong}/alternate", client, tmp_path).returncode == 3


@pytest.mark.parametrize("client", CLIENTS)
def test_the_first_call_respects_max_error_rate(wrong, tmp_path, client):
    """Item 2: --max-error-rate 60% allows a wrong first reply; the measurement's gate judges the server."""
    for _ in range(2):
        done = _target(f"{wrong}/alternate", client, tmp_path, "--max-error-rate", "60%")
        assert done.returncode == 0, done.stderr
        (cell,) = load(tmp_path / "t.json").cells
        assert cell.status == "ok" and cell.calls + cell.errors["wrong_answer"] == 40


def test_a_run_with_nothing_measured_is_not_a_success(health, tmp_path):
    """Item 3: the Python client cannot call a stream; a run whose only cell is unsupported exits 2, saying why."""
    address, proto = health
    done = cli("target", "--client", "py", "--grpc", address, "--method", "grpc.health.v1.Health/Watch",
               "--proto", proto, "--stream-messages", "1", "--calls", "5", *FAST,
               "--out", str(tmp_path / "t.json"))
    assert done.returncode == 2, done.stderr
    assert "nothing measured: the Python client cannot call a server stream: use --client go" in done.stderr


@pytest.mark.parametrize("client", CLIENTS)
def test_a_closed_port_is_a_runtime_error_for_every_client(tmp_path, client):
    """Item 4: nothing listens there: exit 1 (runtime) and one line, whichever client would call."""
    done = cli("target", f"http://127.0.0.1:{free_port('127.0.0.1')}/n", "--client", client, "--calls", "5",
               "--out", str(tmp_path / "t.json"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and len(lines) == 1 and "is down (Connection refused)" in lines[0], done.stderr


@pytest.mark.parametrize("argv", [["show", str(FIXTURE)], ["show", str(FIXTURE), "--format", "csv"], ["list"],
                                  ["show", str(FIXTURE), "--format", "json"]])
def test_a_closed_pipe_ends_quietly_with_0(argv):
    """Item 9: `rpcarena show ... | head -1`: the reader went away before the first write."""
    proc = subprocess.Popen([sys.executable, "-m", "rpcarena", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the only reading end: every write of the command meets a closed pipe
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == "", err


@pytest.mark.parametrize(("argv", "said"), [
    (["run", "--clent", "go"], "unrecognized arguments: --clent go (did you mean '--client'?)"),
    (["run", "--contender", "grpc-p"], "unknown contender 'grpc-p' (did you mean 'grpc-py'?)"),
    (["run", "--workload", "usp.int3"], "unknown workload 'usp.int3' (did you mean 'usp.int32'?)"),
    (["run", "--workload", "foo.*"], "--workload 'foo.*' matched nothing"),
    (["suite", "usp2019"], "unknown suite 'usp2019' (did you mean 'usp2018'?)"),
])
def test_a_misspelled_name_gets_the_closest_one(argv, said, tmp_path):
    """Item 10: did-you-mean for contenders, workloads, suites and options; a glob says it matched nothing."""
    done = cli(*argv, "--debug-mode", cwd=tmp_path)  # no results/ file of an earlier run in the way
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and said in lines[0], done.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (["run", "--duration", "5"], "bad --duration '5': give its unit, e.g. 5s or 5ms"),
    (["target", "http://127.0.0.1:9/x", "--timeout", "5"], "bad --timeout '5': give its unit"),
    (["run", "--warmup", "2"], "bad --warmup '2': give its unit"),
    (["run", "-n", "100", "-z", "1s"], "-n/--calls and -z/--duration both given"),
])
def test_durations_need_units_and_a_count_or_a_time(argv, said, tmp_path):
    """Item 7: a bare number is no duration (ghz asks for the unit too); -n with -z is refused, not half-read."""
    done = cli(*argv, "--debug-mode", "--out", str(tmp_path / "r.json"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and said in lines[0], done.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.fixture
def health(tmp_path):
    """grpcio's health service on an ephemeral port (a server rpcarena did not write), and its .proto."""
    import grpc
    from grpc_health.v1 import health, health_pb2_grpc

    from tests.e2e.test_target_native import HEALTH_PROTO

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(experimental_non_blocking=False), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    proto = tmp_path / "health.proto"
    proto.write_text(HEALTH_PROTO)
    yield f"127.0.0.1:{port}", str(proto)
    server.stop(0)


def test_a_grpc_error_is_one_line_in_the_results(health, tmp_path):
    """Item 5: grpcio's RpcError prints as a multi-line `<_InactiveRpcError ...>`; its example is one line."""
    address, proto = health
    out = tmp_path / "t.json"
    done = cli("target", "--grpc", address, "--method", "grpc.health.v1.Health/Check", "--proto", proto,
               "--data", '{"service": "nobody"}', "--max-error-rate", "100%", "--calls", "10", *FAST,
               "--out", str(out))
    # every call failed: the cell fails however high the allowed error rate, and keeps its errors
    assert done.returncode == 1, done.stderr
    (cell,) = load(out).cells
    assert cell.status == "failed" and cell.errors == {"status_not_found": 10}
    assert cell.error_examples["status_not_found"] == "NOT_FOUND"  # grpcio's health says no details
    assert "_InactiveRpcError" not in done.stderr and "e.g. status_not_found: NOT_FOUND;" in done.stderr


PROTO = str(ROOT / "proto" / "arena.proto")
certs, grpc_tls = breadth.certs, breadth.grpc_tls  # fixtures: a CA and certificates it signed, a server wanting mTLS
ASGI_APP = """
async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})
"""


@pytest.fixture(scope="module")
def hypercorn_mtls(certs, tmp_path_factory):
    """hypercorn over TLS requiring a client certificate: without one it hangs up after the handshake."""
    folder = tmp_path_factory.mktemp("asgi")
    (folder / "asgi_app.py").write_text(ASGI_APP)
    port = free_port("127.0.0.1")
    proc = subprocess.Popen([sys.executable, "-m", "hypercorn", "asgi_app:app", "--bind", f"127.0.0.1:{port}",
                             "--certfile", str(certs / "server.pem"), "--keyfile", str(certs / "server.key"),
                             "--ca-certs", str(certs / "ca.pem"), "--verify-mode", "CERT_REQUIRED"],
                            cwd=folder, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        breadth._wait_for(port)
        yield f"https://127.0.0.1:{port}/x"
    finally:
        end_session(proc)  # its worker process goes too


def _grpc_cases(certs, address: str) -> dict:
    ca, client = ("--cacert", str(certs / "ca.pem")), ("--cert", str(certs / "client.pem"),
                                                       "--key", str(certs / "client.key"))
    return {
        "wrong CA": ((f"grpcs://{address}", "--cacert", str(certs / "client.pem"), *client),  # not the issuer
                     "not signed by a CA trusted here: give --cacert with the server's CA"),
        "no client certificate": ((f"grpcs://{address}", *ca), "give --cert and --key"),
        "closed port": ((f"grpc://127.0.0.1:{free_port('127.0.0.1')}",), "is down (Connection refused): start"),
    }


@pytest.mark.parametrize("case", ["wrong CA", "no client certificate", "closed port"])
@pytest.mark.parametrize("client", CLIENTS[:2])  # the Rust client speaks no TLS (an unsupported cell, item 3)
def test_a_grpc_channel_failure_names_its_cause(grpc_tls, certs, tmp_path, client, case):
    """Item 5: Go said `grpc channel TRANSIENT_FAILURE` for all three, with 'start its server' as the fix;
    each now says its own cause and fix in one line, and no C-core 'Handshake failed' line comes first."""
    argv, said = _grpc_cases(certs, grpc_tls)[case]
    done = cli("target", *argv, "--method", "arena.Arena/SayHello", "--proto", PROTO, "--data", '{"name": "x"}',
               "--client", client, "--calls", "5", "--warmup", "0s", "--timeout", "3s",
               "--out", str(tmp_path / "t.json"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and said in lines[0] and "TRANSIENT_FAILURE" not in lines[0], done.stderr
    assert done.returncode == (1 if case == "closed port" else 2)


@pytest.mark.parametrize("client", CLIENTS[:2])
def test_a_refused_client_certificate_is_named_over_http(hypercorn_mtls, certs, tmp_path, client):
    """Item 5: py said 'Server disconnected without sending a response.; start its server or fix --http'."""
    done = cli("target", "--http", hypercorn_mtls, "--cacert", str(certs / "ca.pem"), "--client", client,
               "--calls", "5", "--warmup", "0s", "--out", str(tmp_path / "t.json"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "client certificate" in lines[0] and "give --cert and --key" in lines[0], done.stderr
    assert "start its server" not in lines[0]


class Flaky(Wrong):
    """GET /flaky -> {"ok": false} on every FLAKY_EVERY-th call, else {"ok": true}; GET /good -> {"ok": true}."""

    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls: the test stays short
    served = 0

    def right(self) -> bool:
        Flaky.served += self.path == "/flaky"
        return self.path != "/flaky" or Flaky.served % FLAKY_EVERY != 0


FLAKY_EVERY = 50


def test_targets_of_different_methods_share_one_ranking_and_a_failed_cell_keeps_its_figures(tmp_path):
    """Item 6: two targets calling different paths were two tables with no ratio, and the cell failed by
    the gate with 392 good calls was 'not measured'. Now one ranking, named for its different methods,
    and the failed cell ranked with its figures, marked failed, its reason below."""
    server = _serve(Flaky)
    base, out = f"http://127.0.0.1:{server.server_address[1]}", tmp_path / "t.json"
    try:
        done = cli("target", "--name", "good", "--http", f"{base}/good", "--expect-json", "ok=true",
                   "--name", "flaky", "--http", f"{base}/flaky", "--expect-json", "ok=true",
                   "--max-error-rate", "1%", "--calls", "400", *FAST, "--out", str(out),
                   env={**os.environ, "COLUMNS": "120"})
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 3, done.stderr  # 8 of 400 failed: above 1%
    assert done.stdout.count("1 client") == 1 and "different methods" in done.stdout, done.stdout
    assert "not measured" not in done.stdout and "failed: flaky<-py: 8 of 400 calls failed" in done.stdout, done.stdout
    shown = cli("show", str(out), "--format", "json")
    (ranking,) = json.loads(shown.stdout)["rankings"]
    by_name = {e["contender"]: e for e in ranking["entries"]}
    assert by_name["flaky"]["calls"] == 392 and by_name["flaky"]["verdict"] == "failed"
    assert "above --max-error-rate 1%" in by_name["flaky"]["failed"]
    assert by_name["good"]["failed"] is None and by_name["good"]["calls"] == 400


def test_list_as_json_and_piped_output_without_padding():
    """Item 11: `list --format json` for scripts; a pipe gets no trailing spaces (rich pads to 200 columns)."""
    listed = cli("list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    inventory = json.loads(listed.stdout)
    assert set(inventory) == {"contenders", "clients_without_server", "workloads", "suites"}
    assert {"tcp-raw", "grpc-py"} <= {c["id"] for c in inventory["contenders"]}
    assert "usp2018" in {s["name"] for s in inventory["suites"]}
    for argv in (["list"], ["show", str(FIXTURE)]):
        done = cli(*argv)
        assert done.returncode == 0 and done.stdout.strip(), done.stderr
        assert [line for line in done.stdout.splitlines() if line != line.rstrip()] == []


def test_verbose_is_offered_only_where_it_means_something():
    """Item 11: -v changes what run, suite, target and show print; list, compare... do not offer it."""
    for name, offered in (("run", True), ("suite", True), ("target", True), ("list", False), ("show", True),
                          ("compare", False), ("export", False), ("build", False)):
        done = cli(name, "--help")
        assert ("--verbose" in done.stdout) == offered, name


def test_figures_want_a_folder_and_the_hlog_header_names_its_units(tmp_path):
    """Item 11: `report --format png -o x.png` made a folder named x.png; the .hlog said ms for values in ns."""
    done = cli("report", str(FIXTURE), "--format", "png", "-o", str(tmp_path / "x.png"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "give a folder" in lines[0], done.stderr
    assert not (tmp_path / "x.png").exists()
    header = interop.interval_log(load(FIXTURE)).splitlines()[0]
    assert "histogram values in ns" in header and "values in ms" not in header


@pytest.mark.skipif(not _native("go"), reason="no go worker here")
def test_several_clients_measure_every_target(limited, tmp_path):
    """Item 6: `--client py,go` is a matrix, as in `run`: a cell per client, each with its calls."""
    out = tmp_path / "t.json"
    done = cli("target", f"{limited}/n", "--client", "py,go", "--expect-json", "ok=true", "--calls", "30", *FAST,
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    cells = load(out).cells
    assert sorted((c.client, c.status, c.calls) for c in cells) == [("go", "ok", 30), ("py", "ok", 30)]


class StoppedWhileProbing(FakeCells):
    """The fake runner, with Ctrl-C during the second probe of a --find-max search."""

    def measure(self, plan, context, logs):
        if len(self.measured) == 2:
            raise KeyboardInterrupt
        return super().measure(plan, context, logs)


def test_an_interrupted_find_max_marks_its_out_file(tmp_path):
    """Item 8: a stop during a probe marked only the probes' scratch file; --out looked finished."""
    config = RunConfig(contenders=["grpc-py"], workloads=["usp.int32"], calls=10, warmup_s=0, out=tmp_path / "r.json")
    with pytest.raises(Interrupted, match="while probing"):
        find_max(config, slo.parse("p99<1s"), fake_plans(config, StoppedWhileProbing()), steps=3)
    kept = load(config.out)
    assert kept.interrupted == "Ctrl-C" and len(kept.cells) == 2  # the capacity cell and the first probe


def test_find_max_says_each_probe_as_it_ends(tmp_path, capsys):
    """Item 8: a search of minutes printed nothing until its end; now a line per probe, then the answer first."""
    from rich.console import Console

    from rpcarena.commands.run import find_max_arena

    config = RunConfig(contenders=["grpc-py"], workloads=["usp.int32"], calls=10, warmup_s=0, out=tmp_path / "r.json")
    console = Console(file=None, width=100, force_terminal=False)
    find_max_arena(config, "p99<1s", console, fake_plans(config))
    out = capsys.readouterr().out.splitlines()
    probes = [line for line in out if line.startswith("probe grpc-py<-py usp.int32 x1 at ")]
    assert len(probes) == 1 + 6 and "closed loop (capacity)" in probes[0]
    assert all("meets the objective" in line for line in probes)
    answer = next(i for i, line in enumerate(out) if ": max " in line and "meeting p99<" in line)
    assert answer == len(probes) + 1 and out[len(probes)].startswith("answer, the highest rate")  # then the steps


def test_find_max_probes_are_not_pooled_as_trials():
    """Item 8: the capacity cell and six probes at different rates were one group of '7 trials' whose
    medians differed ('medians of the 7 trials differ'). Each rate is now its own entry, named by it."""
    from rpcarena.report import answer
    from tests.conftest import trials

    scales = (1.0, 1.5, 3.0, 1.2, 2.0, 1.1, 1.05)  # a saturated server's probes differ far more than trials
    probes = [dataclasses.replace(trials("grpc-py", "usp.int32", scale, noise=(1.0,))[0],
                                  rate_per_s=None if k == 0 else 100.0 * k) for k, scale in enumerate(scales)]
    doc = dataclasses.replace(load(FIXTURE), cells=probes)
    (ranking,) = answer.rankings(doc)
    names = sorted(e.name for e in ranking.entries)
    assert len(names) == 7 and "grpc-py closed loop" in names and "grpc-py at 600/s" in names
    said = [d.text for e in ranking.entries for d in e.warnings]
    assert not [text for text in said if "trials differ" in text], said


@pytest.mark.parametrize("width", [80, 100])
def test_list_fits_a_narrow_terminal_without_cutting_words(width):
    """Item 11: at 80 columns `list` was 427 lines with 56 words cut to '…' (six columns of contenders)."""
    done = cli("list", env={**os.environ, "COLUMNS": str(width)})
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and max(len(line) for line in lines) <= width
    assert not [line for line in lines if "…" in line], done.stdout
    detail = cli("list", "grpc-go", env={**os.environ, "COLUMNS": str(width)})
    assert "clients: py, go, java, node, rust" in detail.stdout  # a contender's clients, whole, in its detail


@pytest.mark.parametrize("width", [80, 100])
def test_compare_never_cuts_a_number_or_a_verdict(width):
    """Item 11: at 80 and 100 columns compare printed '3,653…' and '--repe…'; now every number and word
    is whole and every line fits (below 110 columns the median and the p99 are two tables)."""
    done = cli("compare", str(FIXTURE), str(FIXTURE), env={**os.environ, "COLUMNS": str(width)})
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and max(len(line) for line in lines) <= width, done.stdout
    assert not [line for line in lines if "…" in line], done.stdout
    words = done.stdout.split()
    assert "3,653.1" in words and "--repeat" in words and words.count("1.00x") == 8, done.stdout
