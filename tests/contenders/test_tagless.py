"""tagless: the generated codec, and a real server on an ephemeral port (counts and values, never time)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import pytest
from google.protobuf import json_format

from rpcarena import seeds
from rpcarena.codec import frames
from rpcarena.codec.tagless import codec, from_dict, plain, to_dict
from rpcarena.contenders import tagless
from rpcarena.protocol import schema

UNARY = [w for w in seeds.WORKLOADS.values() if w.mode == "unary" and not w.needs]  # no backing Redis here


def start(contender: str) -> tuple[subprocess.Popen, dict]:
    proc = subprocess.Popen([sys.executable, "-m", "rpcarena.python_server.serve", contender, "--port", "0"],
                            stdout=subprocess.PIPE, start_new_session=True)
    return proc, json.loads(proc.stdout.readline())


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.fixture(scope="module")
def server():
    proc, ready = start("tagless")
    yield f"127.0.0.1:{ready['port']}"
    stop(proc)


@pytest.mark.parametrize("workload", UNARY, ids=lambda w: w.id)
def test_codec_round_trips(workload) -> None:
    info = schema.methods()[workload.method]
    request = codec(f"arena.{info.request}")
    for data in workload.requests:
        value = from_dict(request.descriptor, data)
        body = request.encode(value)
        assert plain(request.decode(body)) == plain(value)
        assert to_dict(request.descriptor, plain(request.decode(body))) == to_dict(request.descriptor, value)
        if workload.id.startswith("hprpc.large"):  # no tags: smaller than protobuf where fields are many
            proto = json_format.ParseDict(data, schema.message_class(info.request)()).SerializeToString()
            assert len(body) < len(proto)


def test_large_data_is_one_struct_of_its_fields() -> None:
    large = codec("arena.LargeData8192")
    assert large._whole is not None and large._whole.format == "<" + "i" * 8192
    body = large.encode(tuple(range(8192)))
    assert len(body) == 8192 * 4 and list(large.decode(body))[:3] == [0, 1, 2]


def test_client_calls_every_kind_of_method(server) -> None:
    for workload_id in ("usp.void", "usp.distance", "hprpc.hello", "hprpc.randnums100", "hprpc.large8192",
                        "infobip.items10", "usp.strings200"):
        w = seeds.WORKLOADS[workload_id]
        client = tagless.TaglessClient(server, w.method, 5.0)
        try:
            got = client.call(client.prepare(w.requests[0]))
            assert client.same(got, client.expect(w.responses[0])), workload_id
        finally:
            client.close()


def _raw(server: str) -> tuple[socket.socket, object]:
    host, _, port = server.rpartition(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    return sock, sock.makefile("rb")


def test_pipelined_calls_come_back_with_their_ids(server) -> None:
    hello = tagless.method_index("SayHello")
    request, response = tagless.method_table()[hello][1:]
    sock, reader = _raw(server)
    sock.sendall(b"".join(frames.pack(100 + i, hello, request.encode((f"n{i}",))) for i in range(5)))
    replies = [frames.read_frame(reader) for _ in range(5)]
    assert [(cid, status, response.decode(body)) for cid, status, body in replies] == [
        (100 + i, frames.OK, (f"Hello n{i}",)) for i in range(5)]
    sock.close()


def test_bad_requests_get_error_replies_and_the_connection_survives(server) -> None:
    hello = tagless.method_index("SayHello")
    sock, reader = _raw(server)
    sock.sendall(frames.pack(1, hello, b"\x09abc"))  # a string longer than the body (varint length 9)
    assert frames.read_frame(reader)[:2] == (1, frames.BAD_REQUEST)
    sock.sendall(frames.pack(2, 999, b""))
    assert frames.read_frame(reader)[:2] == (2, frames.UNKNOWN_METHOD)
    sock.sendall(frames.pack(3, hello, b"\x02ok"))
    assert frames.read_frame(reader)[:2] == (3, frames.OK)
    sock.close()


def test_an_oversized_frame_closes_the_connection(server) -> None:
    sock, reader = _raw(server)
    sock.sendall(frames.HEADER.pack(frames.MAX_FRAME + 1, 1, 0))
    assert reader.read(1) == b""
    sock.close()


def test_a_failed_call_is_counted_and_the_client_reconnects(server) -> None:
    client = tagless.TaglessClient(server, "SayHello", 5.0)
    client._sock.shutdown(socket.SHUT_RDWR)  # the connection breaks under the client
    with pytest.raises(OSError) as error:
        client.call(("x",))
    assert client.classify(error.value) == "connection"
    assert client.call(("x",)) == ("Hello x",)
    client.close()
