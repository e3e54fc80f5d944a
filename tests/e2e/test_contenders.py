"""Every Python contender answers every canonical workload correctly, over its real server."""

from __future__ import annotations

import pytest

from rpcarena import contenders, seeds
from rpcarena.contenders.base import PythonContender

PYTHON = [c.id for c in contenders.all_contenders().values() if isinstance(c, PythonContender)]
UNARY = [w for w in seeds.WORKLOADS.values() if w.mode == "unary" and not w.needs]  # no backing Redis here


@pytest.mark.parametrize("contender_id", PYTHON)
def test_every_workload_verified(contender_id, start_server):
    contender = contenders.get(contender_id)
    if contender.unavailable():
        pytest.skip(contender.unavailable())
    server = start_server(contender_id)
    client_cls = contenders.python_client(contender.protocol, contender.default_client())
    checked = 0
    for workload in UNARY:
        if contender.unsupported(workload.method):
            continue
        client = client_cls(server.target, workload.method, 10.0)
        try:
            for request, response in list(zip(workload.requests, workload.responses))[:3]:
                got = client.call(client.prepare(request))
                assert client.same(got, client.expect(response)), (contender_id, workload.id)
                checked += 1
        finally:
            client.close()
    assert checked >= len(UNARY)


@pytest.mark.parametrize("contender_id", ["grpc-py", "rest-fastapi", "rpyc-tuple"])
def test_a_wrong_answer_is_detected(contender_id, start_server):
    contender = contenders.get(contender_id)
    server = start_server(contender_id)
    client = contenders.python_client(contender.protocol, contender.default_client())(server.target, "Invert", 10.0)
    try:
        got = client.call(client.prepare({"value": "Speed"}))
        assert client.same(got, client.expect({"value": "deepS"}))
        assert not client.same(got, client.expect({"value": "Speed"}))
        said = client.explain(got, client.expect({"value": "Speed"}))  # the example a results document keeps
        assert said.startswith("expected ") and said.index("Speed") < said.index("got ") < said.index("deepS")
    finally:
        client.close()


def test_requests_client_drives_fastapi(start_server):
    server = start_server("rest-fastapi")
    client = contenders.python_client("http-json", "py-requests")(server.target, "SayHello", 10.0)
    try:
        assert client.call({"name": "arena"}) == {"message": "Hello arena"}
    finally:
        client.close()


@pytest.mark.parametrize("client_id, kept", [("py", 1), ("py-newconn", 0)])
def test_the_new_connection_client_keeps_no_connection_between_calls(start_server, client_id, kept):
    import psutil

    server = start_server("rest-fastapi")
    port = int(server.target.rpartition(":")[2])
    client = contenders.python_client("http-json", client_id)(server.target, "SayHello", 10.0)
    try:
        for _ in range(3):
            assert client.call({"name": "arena"}) == {"message": "Hello arena"}
        open_to_server = [c for c in psutil.Process().net_connections(kind="tcp")
                          if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED]
        assert len(open_to_server) == kept
    finally:
        client.close()


def test_classic_rpyc_is_never_exposed(start_server):
    import rpyc

    server = start_server("rpyc")
    host, _, port = server.target.rpartition(":")
    conn = rpyc.connect(host, int(port))
    try:
        with pytest.raises(AttributeError):
            conn.root.getmodule("os")  # what SlaveService would offer: remote code execution
        with pytest.raises(AttributeError):
            conn.root.eval("1+1")
    finally:
        conn.close()
