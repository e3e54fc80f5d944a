"""typed-json: the typed codec, and failover when a server process dies mid-run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from rpcarena import seeds
from rpcarena.codec import frames
from rpcarena.codec import typed_json as tj
from rpcarena.contenders import typed_json
from tests.contenders.test_tagless import start, stop
from tests.helpers.processes import connected, wait_for


def test_every_object_carries_its_type() -> None:
    typed = tj.to_typed(tj.descriptor("VectorPair"), {"a": {"x": 1.0}, "b": {"y": 2.0}})
    assert typed == {"@type": "arena.VectorPair", "a": {"@type": "arena.Vector3", "x": 1.0},
                     "b": {"@type": "arena.Vector3", "y": 2.0}}
    assert tj.decode(tj.descriptor("VectorPair"), tj.dumps(typed))["b"] == {"x": 0.0, "y": 2.0, "z": 0.0}


@pytest.mark.parametrize("body", [
    b'{"@type":"arena.Word","value":"x"}',              # the wrong type
    b'{"@type":"arena.Int32Msg","value":2147483648}',   # out of range
    b'{"@type":"arena.Int32Msg","value":true}',         # a bool is not a number
    b'{"@type":"arena.Int32Msg","other":1}',            # no such field
    b'[1,2]', b'{"@type":', b'\xff\xfe', b'[' * 100000,
])
def test_decoder_rejects(body: bytes) -> None:
    with pytest.raises(tj.DecodeError):
        tj.decode(tj.descriptor("Int32Msg"), body)


CART = """syntax = "proto3"; package tjshop;
message Line { string sku = 1; }
message Cart { bytes blob = 1; map<string, int32> marks = 2; map<int32, Line> lines = 3;
               oneof pay { string card = 4; string voucher = 5; } }
"""


@pytest.fixture
def cart(tmp_path, monkeypatch):
    from rpcarena.protocol import schema
    from rpcarena.userschema import compiled

    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cart.proto").write_text(CART)
    schema.add_user(compiled.descriptor_set(tmp_path / "cart.proto")[0])
    return tj.descriptor("tjshop.Cart")


def test_a_users_bytes_maps_and_oneof_go_as_base64_objects_and_the_one_member(cart) -> None:
    canonical = {"blob": "AAEC", "marks": {"a": 1}, "lines": {"7": {"sku": "y"}}, "voucher": "V"}
    typed = tj.to_typed(cart, canonical)
    assert typed["lines"] == {"7": {"@type": "tjshop.Line", "sku": "y"}} and typed["marks"] == {"a": 1}
    assert tj.decode(cart, tj.dumps(typed)) == canonical  # the oneof's unset member stays absent
    # a user's message keeps what was sent and nothing more: no field appears that was not there
    assert tj.decode(cart, b'{"@type": "tjshop.Cart"}') == {}


@pytest.mark.parametrize("body", [
    b'{"@type": "tjshop.Cart", "blob": "not base64!"}', b'{"@type": "tjshop.Cart", "blob": 5}',
    b'{"@type": "tjshop.Cart", "marks": [1]}', b'{"@type": "tjshop.Cart", "marks": {"a": "1"}}',
    b'{"@type": "tjshop.Cart", "lines": {"7": {"sku": "y"}}}',  # a map's message value untyped
])
def test_a_users_bytes_and_maps_that_do_not_fit_are_rejected(cart, body: bytes) -> None:
    with pytest.raises(tj.DecodeError):
        tj.decode(cart, body)


def test_server_answers_a_bad_call_with_an_error_status() -> None:
    assert typed_json.handle(0, b'{"@type":"arena.Call","method":"Nope"}')[0] == frames.UNKNOWN_METHOD
    assert typed_json.handle(0, b'{"@type":"arena.Call","method":"SayHello","arg":{}}')[0] == frames.BAD_REQUEST


def _drive(target: str, calls: int, clients: int) -> subprocess.Popen:
    w = seeds.WORKLOADS["hprpc.hello"]
    spec = {"contract": 1, "contender": "typed-json", "target": target, "method": w.method,
            "requests": w.requests, "responses": w.responses, "clients": clients, "warmup_s": 0.0,
            "calls": calls, "timeout_ms": 5000, "sample_limit": 100, "sync": True}
    proc = subprocess.Popen([sys.executable, "-m", "rpcarena.worker.drive"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    proc.stdin.write(json.dumps(spec) + "\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline()) == {"event": "warm"}
    return proc


CALLS = 40_000


def test_killing_a_server_process_mid_run_loses_no_call() -> None:
    server, ready = start("typed-json")
    try:
        assert len(ready["workers"]) == 2
        # Enough calls to outlast the kill, and enough connections that the killed worker accepted
        # some from the listening socket both share (the client also seeks a link to each worker).
        driver = _drive(f"127.0.0.1:{ready['port']}", calls=CALLS, clients=8)
        driver.stdin.write("go\n")
        driver.stdin.flush()
        # once the worker to be killed holds calls' connections (a loaded machine starts the
        # driver's clients later than a fixed sleep assumed); stopped first, so that the clients on
        # them have calls in flight when it dies (an idle connection's next call may just reconnect)
        wait_for(lambda: connected(ready["workers"][0]), 60)
        os.kill(ready["workers"][0], signal.SIGSTOP)
        time.sleep(0.5)
        os.kill(ready["workers"][0], signal.SIGKILL)
        result = json.loads(driver.communicate(timeout=120)[0].splitlines()[-1])
        assert server.poll() is None  # the supervisor and the other worker go on
    finally:
        stop(server)
    errors = sum(result["errors"].values())
    assert result["calls"] + errors == CALLS  # every call answered, or counted as failed
    assert result["calls"] > CALLS // 2 and set(result["errors"]) <= {"connection"}
    assert result["retries"] + errors >= 1  # the calls in flight on the dead process show up


def _shared_listener(port: int = 0) -> socket.socket:
    """A listening socket that would share its port with any other SO_REUSEPORT socket of this user."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(8)
    return sock


def test_a_port_another_socket_holds_is_not_shared() -> None:
    with _shared_listener() as holder:
        proc = subprocess.Popen([sys.executable, "-m", "rpcarena.python_server.serve", "typed-json", "--port",
                                 str(holder.getsockname()[1])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # it serves: on the holder's port
            stop(proc)
            pytest.fail("typed-json serves on a port another socket holds")
    assert proc.returncode != 0 and "cannot bind" in err and "ready" not in out


def test_no_other_socket_can_share_the_servers_port() -> None:
    server, ready = start("typed-json")
    try:
        with pytest.raises(OSError):
            _shared_listener(ready["port"]).close()
    finally:
        stop(server)
