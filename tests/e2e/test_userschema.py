"""Workloads from the user's own schema (`rpcarena run --proto`): compiling, samples, --fill, replies,
and the schema served and called by every mechanism that serves one, against real servers."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

import rpcarena
from rpcarena import workloads
from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec
from rpcarena.errors import UsageError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.userschema import compiled, fill, replies, samples
from rpcarena.userschema.workload import UserWorkload, build
from tests.conftest import COLD_TIMEOUT_S, cli
from tests.helpers import EXAMPLES

SHOP = """syntax = "proto3";
package shop;
service Shop { rpc Buy(Cart) returns (Cart); rpc Watch(stream Cart) returns (stream Cart); }
enum Kind { KIND_UNSET = 0; BOOK = 1; TOOL = 2; }
message Line { string sku = 1; int64 count = 2; Kind kind = 3; }
message Cart {
  string id = 1;
  bytes blob = 2;
  repeated Line lines = 3;
  map<string, int32> marks = 4;
  oneof pay { string card = 5; string voucher = 6; }
  double total = 7;
}
"""


def _types(proto: Path, *names: str) -> list[type]:
    """Message classes of a compiled schema, from a pool of their own (this process's schema untouched)."""
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(compiled.descriptor_set(proto)[0]).file:
        pool.Add(file)
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(name)) for name in names]


@pytest.fixture
def shop(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    proto = tmp_path / "shop" / "shop.proto"
    proto.parent.mkdir()
    proto.write_text(SHOP)
    return proto


def test_fill_is_deterministic_sized_and_fits_the_schema(shop):
    (cart,) = _types(shop, "shop.Cart")
    spec = fill.parse("strings=32B,bytes=4KB,repeated=3,seed=7,count=2")
    first, again = fill.requests(spec, cart.DESCRIPTOR), fill.requests(spec, cart.DESCRIPTOR)
    assert first == again and len(first) == 2 and first[0] != first[1]
    assert fill.requests(fill.parse("seed=8,count=2"), cart.DESCRIPTOR) != fill.requests(
        fill.parse("seed=7,count=2"), cart.DESCRIPTOR)
    message = json_format.ParseDict(first[0], cart())
    assert len(message.id) == 32 and len(message.blob) == 4096
    assert len(message.lines) == 3 and len(message.lines[0].sku) == 32 and len(message.marks) == 3
    assert message.WhichOneof("pay") == "card"  # a oneof gets its first member, never two
    assert spec.text == "strings=32B,bytes=4096B,repeated=3,seed=7,count=2"


@pytest.mark.parametrize("text", ["strings=32XB", "bites=4KB", "repeated=many", "count=0", "strings=1TB"])
def test_a_bad_fill_says_how_to_write_one(text):
    with pytest.raises(UsageError, match="--fill"):
        fill.parse(text)


def test_a_malformed_schema_is_one_line_with_protocs_message(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    bad = tmp_path / "bad.proto"
    bad.write_text('syntax = "proto3";\nmessage M { strin name = 1; }\n')
    with pytest.raises(UsageError) as raised:
        compiled.descriptor_set(bad)
    text = str(raised.value)
    assert "\n" not in text and "bad.proto:2:" in text and "strin" in text and "fix the .proto" in text


def test_the_compiled_schema_is_cached_by_its_hash(shop):
    first, digest = compiled.descriptor_set(shop)
    assert compiled.descriptor_set(shop) == (first, digest)
    assert (compiled.cache_folder() / digest / "set.pb").read_bytes() == first
    shop.write_text(SHOP.replace("double total = 7;", "double total = 7; string coupon = 8;"))
    changed, other = compiled.descriptor_set(shop)
    assert other != digest and changed != first


def test_a_sample_that_does_not_fit_names_its_file_and_line(shop, tmp_path):
    (cart,) = _types(shop, "shop.Cart")
    data = tmp_path / "carts.jsonl"
    data.write_text('{"id": "a"}\n\n{"id": "b", "lines": [{"skew": "x"}]}\n')
    with pytest.raises(UsageError) as raised:
        samples.from_file(data, cart, "--data-file")
    assert str(raised.value).startswith(f"{data}:3: the sample does not fit shop.Cart")
    assert "skew" in str(raised.value) and "\n" not in str(raised.value)


def test_replies_echo_by_field_number_and_fill_to_the_size_asked():
    request_type, reply_type = _types(EXAMPLES / "orders" / "orders.proto", "orders.PlaceRequest", "orders.PlaceReply")
    request = json_format.ParseDict({"order_id": "A-1", "customer": "ada", "note": "x", "express": True},
                                    request_type())
    assert samples.canonical(replies.echoed(request, reply_type)) == {"order_id": "A-1", "customer": "ada"}
    sized = json_format.ParseDict(replies.sized(reply_type, 4096), reply_type())
    assert sized.ByteSize() == 4096


def _cells(path: Path) -> dict[str, rpcarena.Cell]:
    return {c.contender: c for c in rpcarena.load(path).cells}


def test_a_user_schema_through_every_python_mechanism(tmp_path):
    """Served and called for real; every answer checked against the expected reply."""
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "orders" / "orders.proto"), "--method", "orders.Orders/Place",
               "--data-file", str(EXAMPLES / "orders" / "requests.jsonl"), "--reply-size", "1KB",
               "--server-work", "50us", "--contender",
               "tcp-raw,grpc-py,rest-fastapi,tagless,typed-json,rpyc-tuple-nodelay,thrift-binary",
               "-n", "30", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    for contender in ("tcp-raw", "grpc-py", "rest-fastapi", "tagless", "typed-json", "rpyc-tuple-nodelay",
                      "thrift-binary"):
        assert cells[contender].status == "ok", cells[contender].reason
        assert cells[contender].calls == 30 and cells[contender].errors == {}
    recorded = rpcarena.load(out).config["user_schema"]
    assert recorded["method"] == "orders.Orders/Place" and recorded["reply_size_bytes"] == 1024
    _time_goes_in_parts(out)


def _time_goes_in_parts(out: Path) -> None:
    """Where the time goes: each ranked mechanism's p50 in the handler's 50 µs, its floor (the one
    Python echo) and the rest, its server CPU less the handler's work; the floor itself not a part."""
    shown = json.loads(cli("show", str(out), "--format", "json").stdout)
    (found,) = shown["time_goes"]
    ranked = [e["contender"] for e in shown["rankings"][0]["entries"]]
    assert [p["contender"] for p in found["parts"]] == ranked and "tcp-raw" not in ranked and len(ranked) == 6
    assert found["workload"].startswith("orders.Orders/Place of ") and "requests.jsonl" in found["workload"]
    (floor,) = {p["transport_us"] for p in found["parts"]}
    assert floor == shown["rankings"][0]["floors"][0]["p50_us"]
    for part in found["parts"]:
        assert part["handler_us"] == 50
        assert part["mechanism_us"] == pytest.approx(part["p50_us"] - 50 - floor)
        assert part["server_mechanism_cpu_us"] == pytest.approx(part["server_cpu_us"] - 50)
        assert part["bytes_per_call"] > 1024  # the 1 KB reply, on the wire
    table = cli("show", str(out)).stdout
    assert "where the time goes" in table and "mechanism's own" in table


def test_a_stream_is_measured_by_grpc_and_unsupported_in_rest(tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", "ticks.Ticker/Follow",
               "--fill", "strings=8B,repeated=4,seed=3,count=2", "--contender", "grpc-py,rest-fastapi",
               "-n", "20", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    assert cells["grpc-py"].status == "ok" and cells["grpc-py"].calls == 20 and cells["grpc-py"].errors == {}
    assert cells["rest-fastapi"].status == "unsupported" and "stream" in cells["rest-fastapi"].reason
    assert rpcarena.load(out).config["user_schema"]["fill"] == "strings=8B,repeated=4,seed=3,count=2"


@pytest.mark.parametrize(("method", "stream"), [("Record", "client"), ("Watch", "server")])
def test_a_one_way_stream_is_a_stream_a_call_measured_by_grpc_and_named_unsupported_elsewhere(tmp_path, method,
                                                                                              stream):
    """A client stream's call sends K requests and gets one reply; a server stream's sends one and
    reads K replies: the bytes a call moves say so, every reply is checked, and the mechanisms
    without such a stream say why."""
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", f"ticks.Ticker/{method}",
               "--data-file", str(EXAMPLES / "streaming" / "requests.jsonl"), "--reply-size", "200B",
               "--stream-messages", "7", "--contender", "grpc-py,tcp-raw,rest-fastapi,tagless",
               "-n", "20", "--warmup", "0s", "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert f"7 {'requests' if stream == 'client' else 'replies'} a call's stream" in done.stderr
    cells = _cells(out)
    grpc = cells["grpc-py"]
    assert (grpc.status, grpc.calls, grpc.errors) == ("ok", 20, {}), (grpc.reason, grpc.error_examples)
    assert grpc.wire_in_bytes is None or grpc.payload_bytes_per_call > (200 * 7 if stream == "server" else 7 * 10)
    assert cells["tcp-raw"].status == cells["rest-fastapi"].status == cells["tagless"].status == "unsupported"
    assert "one-way stream" in cells["tcp-raw"].reason and "stream" in cells["rest-fastapi"].reason
    recorded = rpcarena.load(out).config["user_schema"]
    assert recorded["stream_messages"] == 7


def wrong_cells(proto: Path, method: str, data: str, expected, contenders: list[str], clients: list[str] | None,
                out: Path, warmup_max_s: float | None = None, **options) -> dict[str, dict]:
    """The errors of each contender's cell of METHOD when the drivers expect `expected(right reply)`
    instead of the right reply: measured in this process, the workload's reference replaced while
    the arena runs (each call given the time a cold JVM's first takes on a busy machine)."""
    user = UserWorkload(proto=str(proto), method=method, data=data, **options)
    right = build(user)
    config = RunConfig(contenders=contenders, client_drivers=clients, workloads=[right.id], calls=5, warmup_s=0,
                       warmup_max_s=warmup_max_s, timeout_ms=COLD_TIMEOUT_S * 1000, out=out,
                       user_schema=user.to_json())
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(workloads.WORKLOADS, right.id,
                      dataclasses.replace(right, reference=lambda call: expected(right.reference(call))))
        return {c.contender: c.errors for c in Arena(config, plans(config)).run().cells}


def one_way_wrong(tmp_path: Path, method: str, contenders: list[str], clients: list[str] | None) -> dict:
    """The errors of each contender's cell when its client expects another reply to a client stream,
    or one reply more than a server stream sends."""
    def wrong(replies):  # Watch is a server stream (one tick sent, its replies), Record a client stream
        return replies + replies[:1] if method == "Watch" else {"symbol": "B"}
    return wrong_cells(EXAMPLES / "streaming" / "ticks.proto", f"ticks.Ticker/{method}", '{"symbol": "A"}', wrong,
                       contenders, clients, tmp_path / "w.json", stream_messages=3)


def one_way_served(tmp_path: Path, method: str, contenders: str, clients: str, served: list[tuple[str, str]],
                   *options: str) -> None:
    """Runs ticks.Ticker/METHOD (--fill ticks, 4 messages a call's stream) with CONTENDERS and CLIENTS
    and checks that each (contender, client) of SERVED made its 20 calls, every reply right."""
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "streaming" / "ticks.proto"), "--method", f"ticks.Ticker/{method}",
               "--fill", "strings=8B,repeated=4,seed=3,count=2", "--stream-messages", "4", "--contender",
               contenders, "--client", clients, "-n", "20", "--warmup", "0s", "--repeat", "1", "-o", str(out),
               *options)
    assert done.returncode == 0, done.stderr
    cells = {(c.contender, c.client): c for c in rpcarena.load(out).cells}
    for key in served:
        cell = cells[key]
        assert (cell.status, cell.calls, cell.errors) == ("ok", 20, {}), (key, cell.reason, cell.error_examples)


@pytest.mark.parametrize("method", ["Record", "Watch"])
def test_a_one_way_streams_wrong_answer_or_missing_reply_is_counted(tmp_path, method):
    assert one_way_wrong(tmp_path, method, ["grpc-py"], None) == {"grpc-py": {"wrong_answer": 5}}


def test_a_feature_a_mechanism_cannot_express_is_an_unsupported_cell_naming_it(tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--proto", str(EXAMPLES / "large" / "documents.proto"), "--method", "documents.Store/Put",
               "--fill", "bytes=1KB", "--reply-size", "64B", "--contender", "tagless,typed-json,thrift-binary",
               "-n", "5",
               "--repeat", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    assert cells["tagless"].status == "unsupported"
    assert cells["tagless"].reason.startswith("documents.Document.attributes is a map: ")  # its bytes it carries
    for carried in ("typed-json", "thrift-binary"):  # Thrift's IDL has the map, and the bytes as binary
        assert (cells[carried].status, cells[carried].calls, cells[carried].errors) == ("ok", 5, {})


CARTS = ('[{"id": "c1", "blob": "AAEC", "lines": [{"sku": "x", "count": "3", "kind": "BOOK"}], "marks": {"a": 1},'
         ' "card": "4111", "total": 9.5}, {"id": "c2", "voucher": "V", "lines": [{"sku": "y", "kind": 2}]}]')


def test_typed_json_and_tagless_carry_bytes_enums_and_typed_json_maps_and_oneofs(shop, tmp_path):
    """Bytes as proto JSON's base64, enums by number, maps as objects, a oneof's one member: echoed,
    and answered from a reply file (through the messages), every reply checked; tagless carries the
    bytes and enums of a schema without maps or oneofs, and names the oneof of this one."""
    replies_file = tmp_path / "replies.jsonl"
    replies_file.write_text('{"id": "r1", "voucher": "X", "blob": "AQ=="}\n'
                            '{"id": "r2", "card": "5", "marks": {"z": 3}}\n')
    flat = tmp_path / "flat.proto"
    flat.write_text(SHOP.split("message Cart")[0].replace("service Shop { rpc Buy(Cart) returns (Cart); "
                                                          "rpc Watch(stream Cart) returns (stream Cart); }",
                                                          "service Lines { rpc Put(Line) returns (Line); }")
                    .replace("int64 count = 2;", "int64 count = 2; bytes tag = 4; repeated bytes more = 5;"))
    for proto, method, data, reply in ((shop, "shop.Shop/Buy", CARTS, ()),
                                       (shop, "shop.Shop/Buy", CARTS, ("--reply-file", str(replies_file))),
                                       (flat, "shop.Lines/Put", '{"sku": "s", "kind": "TOOL", "tag": "/wA=", '
                                        '"more": ["AA==", ""]}', ())):
        out = tmp_path / "r.json"
        done = cli("run", "--proto", str(proto), "--method", method, "--data", data, *reply,
                   "--contender", "typed-json,tagless,grpc-py", "-n", "20", "--warmup", "0s", "--repeat", "1",
                   "-o", str(out), "--force")
        assert done.returncode == 0, done.stderr
        cells = _cells(out)
        measured = ("typed-json", "grpc-py") if proto == shop else ("typed-json", "tagless", "grpc-py")
        for contender in measured:
            assert (cells[contender].status, cells[contender].calls, cells[contender].errors) == ("ok", 20, {}), (
                proto.name, reply, contender, cells[contender].reason, cells[contender].error_examples)
        if proto == shop:
            assert cells["tagless"].status == "unsupported" and cells["tagless"].reason.startswith("shop.Cart.")


def test_a_bad_sample_on_the_command_line_is_one_line_naming_it(tmp_path):
    data = tmp_path / "requests.jsonl"
    data.write_text('{"order_id": "A-1"}\n{"order_id": 5, "items": "none"}\n')
    done = cli("run", "--debug-mode", "--proto", str(EXAMPLES / "orders" / "orders.proto"), "--method",
               "orders.Orders/Place", "--data-file", str(data), "-o", str(tmp_path / "r.json"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"{data}:2: the sample does not fit orders.PlaceRequest" in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_the_drive_spec_carries_the_compiled_schema_and_leaves_it_out_otherwise():
    descriptor_set, _ = compiled.descriptor_set(EXAMPLES / "orders" / "orders.proto")
    spec = DriveSpec(contender="grpc-py", target="127.0.0.1:1", method="orders.Orders/Place", requests=[{}],
                     calls=1, schema_b64=base64.b64encode(descriptor_set).decode())
    assert base64.b64decode(DriveSpec.from_line(spec.to_line()).schema_b64 or "") == descriptor_set
    assert "schema_b64" not in spec.but(schema_b64=None).to_json()  # the seeds' specs are as they were


def test_every_mechanism_checks_each_reply_against_the_expected_one(tmp_path):
    """The servers answer "A-1" while the drivers expect "A-2": every call is a wrong answer."""
    mechanisms = ["grpc-py", "rest-fastapi", "tagless", "typed-json", "rpyc-tuple-nodelay", "thrift-compact"]
    errors = wrong_cells(EXAMPLES / "orders" / "orders.proto", "orders.Orders/Place", '{"order_id": "A-1"}',
                         lambda right: {"order_id": "A-2"}, mechanisms, None, tmp_path / "r.json")
    assert errors == {c: {"wrong_answer": 5} for c in mechanisms}
