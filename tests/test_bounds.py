"""Bounded resources in every server: a count over the cap is refused naming it, a lying header
costs no memory, an idle connection is closed.

Real servers, started as the orchestrator starts them (ServerProcess, port 0). Memory is read
from /proc (VmRSS of the server and its child processes) or traced in-process; no duration is
ever asserted, and every wait is bounded.
"""

from __future__ import annotations

import os

import pytest

from rpcarena import contenders
from rpcarena.codec import frames
from rpcarena.codec import tagless as tagless_codec
from rpcarena.contenders import tagless
from rpcarena.contenders.base import PythonContender
from rpcarena.protocol import semantics

CAP = 1_000_000  # the contract's cap on GetRandNums' count and on any count a peer announces


def _available(contender_id: str) -> None:
    reason = contenders.get(contender_id).unavailable()
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


# The cap

def test_the_cap_is_the_contracts() -> None:
    assert semantics.MAX_COUNT == CAP
    assert len(semantics.rand_nums(CAP, 1)) == CAP
    with pytest.raises(semantics.Refused, match=f"GetRandNums count {CAP + 1} is over the cap of {CAP}"):
        semantics.rand_nums(CAP + 1, 1)


# every server of an operation, and the error kind its refusal is counted as by the Python client
REFUSAL_KINDS = {"grpc": "status_invalid_argument", "http-json": "status_400", "tagless": "status_bad_request",
                 "typed-json": "status_bad_request", "thrift-binary": "status_application_error",
                 "thrift-compact": "status_application_error", "rpyc": "status_remote_error"}
SERVERS = [c.id for c in contenders.all_contenders().values() if c.protocol in REFUSAL_KINDS]
OVER = {"count": CAP + 1, "seed": 1}


@pytest.mark.parametrize("contender_id", SERVERS)
def test_rand_nums_over_the_cap_is_refused_naming_the_cap(contender_id, start_server):
    _available(contender_id)
    contender = contenders.get(contender_id)
    server = start_server(contender_id)
    client_id = contender.default_client() if isinstance(contender, PythonContender) else "py"
    client = contenders.python_client(contender.protocol, client_id)(server.target, "GetRandNums", 30.0)
    try:
        with pytest.raises(Exception) as refused:
            client.call(client.prepare(OVER))
        assert client.classify(refused.value) == REFUSAL_KINDS[contender.protocol], refused.value
        if contender.protocol == "http-json":  # the client keeps the status only: read the body
            assert str(CAP) in _post(server.target, "/arena/GetRandNums", OVER)
        else:
            assert str(CAP) in str(refused.value)
        small = {"count": 3, "seed": 1}  # and the server goes on answering
        got = client.call(client.prepare(small))
        assert client.same(got, client.expect(semantics.respond("GetRandNums", small)))
    finally:
        client.close()


def _post(target: str, path: str, body: dict) -> str:
    import httpx

    reply = httpx.post(f"http://{target}{path}", json=body, timeout=30.0)
    assert reply.status_code == 400
    return reply.text


def test_a_tagless_repeated_count_over_the_cap_is_a_bad_request() -> None:
    strings = tagless.method_index("EchoStrings")
    body = tagless_codec.varint(CAP + 1) + b"\x00" * (CAP + 1)  # that many empty strings: 1 byte each
    status, reply = tagless.handle(strings, body)
    assert status == frames.BAD_REQUEST and f"over the cap of {CAP}".encode() in reply
    status, _ = tagless.handle(strings, tagless_codec.varint(CAP) + b"\x00" * CAP)
    assert status == frames.OK
