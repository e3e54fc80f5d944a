"""thrift-binary and thrift-compact: the generated IDL and real servers on ephemeral ports."""

from __future__ import annotations

import pytest

from rpcarena import seeds
from rpcarena.codec import thrift_idl
from rpcarena.contenders import thrift_py
from tests.contenders.test_tagless import start, stop


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


# A client whose IDL lies about the types: HelloRequest.name as an i32, Distance's argument an i32.
LIAR_IDL = """
struct HelloRequest { 1: i32 name }
struct HelloReply { 1: string message }
struct DoubleMsg { 1: double value }
struct Word { 1: string value }
service Arena {
  HelloReply SayHello(1: HelloRequest req),
  DoubleMsg Distance(1: i32 req),
  Word Invert(1: Word req),
}
"""


@pytest.mark.parametrize("contender", ["thrift-binary", "thrift-compact"])
def test_a_field_of_the_wrong_type_gets_an_application_exception(contender, tmp_path) -> None:
    import thriftpy2
    from thriftpy2.rpc import make_client
    from thriftpy2.thrift import TApplicationException

    idl = tmp_path / "liar.thrift"
    idl.write_text(LIAR_IDL)
    liar = thriftpy2.load(str(idl), module_name="liar_thrift")
    proc, ready = start(contender)
    wire = "binary" if contender == "thrift-binary" else "compact"
    client = make_client(liar.Arena, "127.0.0.1", ready["port"], proto_factory=thrift_py.protocol_factory(wire),
                         trans_factory=thrift_py.transport_factory(), timeout=10_000)
    try:
        with pytest.raises(TApplicationException, match="wrong type"):
            client.SayHello(liar.HelloRequest(name=42))
        with pytest.raises(TApplicationException, match="wrong type"):
            client.Distance(7)
        assert client.Invert(liar.Word(value="ab")).value == "ba"  # the same connection, still served
    finally:
        client.close()
        stop(proc)
