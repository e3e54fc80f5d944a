"""thrift-binary and thrift-compact: the generated IDL and real servers on ephemeral ports."""

from __future__ import annotations

import pytest

from rpcarena import seeds
from rpcarena.codec import thrift_idl
from rpcarena.contenders import thrift_py
from test_tagless import start, stop


def test_idl_has_every_message_and_unary_method() -> None:
    text = thrift_idl.idl()
    assert "struct LargeData8192 {" in text and "  8192: i32 f8192,\n" in text
    assert "  2: i64 seed,\n" in text  # uint32 widened: Thrift has no unsigned types
    assert "InvertStream" not in text and "  Empty Void(1: Empty req),\n" in text


@pytest.mark.parametrize("contender,client_cls", [("thrift-binary", thrift_py.ThriftBinaryClient),
                                                  ("thrift-compact", thrift_py.ThriftCompactClient)])
def test_servers_answer_the_workloads(contender, client_cls) -> None:
    proc, ready = start(contender)
    try:
        target = f"127.0.0.1:{ready['port']}"
        for workload_id in ("usp.void", "usp.distance", "hprpc.hello", "hprpc.randnums100", "hprpc.large128",
                            "infobip.items10"):
            w = seeds.WORKLOADS[workload_id]
            client = client_cls(target, w.method, 5.0)
            try:
                for _ in range(3):
                    got = client.call(client.prepare(w.requests[0]))
                    assert client.same(got, client.expect(w.responses[0])), workload_id
            finally:
                client.close()
    finally:
        stop(proc)
