"""Which values of the run's samples a mechanism cannot carry (`userschema.values`): a -0.0 where the
wire has no presence, NaN or an infinity, a null google.protobuf.Value, an enum number the enum does
not name, each named by its sample and field, before any call, where it matters to the role (a
server writes the replies, a client the requests); the same values where the wire keeps them are
not named. The echo's reply is its request, so a server finds in "reply N" what a client finds in
"request N"."""

from __future__ import annotations

import json

import pytest

from rpcarena import contenders as registry
from rpcarena.contenders import native
from rpcarena.protocol import schema
from rpcarena.userschema import features
from rpcarena.userschema.workload import UserWorkload, build
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "conformance"
ALL = {"negative_zero", "non_finite", "null_value"}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))


def _method(tmp_path, proto: str, key: str, *samples: dict) -> schema.Method:
    data = tmp_path / "requests.jsonl"
    data.write_text("".join(json.dumps(s) + "\n" for s in samples))
    build(UserWorkload(proto=str(CORPUS / proto), method=key, data_file=str(data)))
    return schema.methods()[key]


def test_a_negative_zero_is_named_where_the_wire_has_no_presence(tmp_path):
    method = _method(tmp_path, "core.proto", "conformance.floats.Floats/Echo", {"d": 1.5}, {"f": -0.0})
    assert features.first_of(method, ALL) == ("negative_zero", "reply 2's conformance.floats.Reals.f")
    assert features.first_of(method, ALL, "client") == ("negative_zero", "request 2's conformance.floats.Reals.f")
    assert features.first_of(method, {"non_finite"}) is None


def test_a_negative_zero_in_a_repeated_float_is_carried(tmp_path):
    method = _method(tmp_path, "core.proto", "conformance.floats.Floats/Echo", {"ds": [-0.0, 0.0]})
    assert features.first_of(method, ALL) is None


def test_a_map_value_and_a_wrapper_have_no_presence_either(tmp_path):
    prices = _method(tmp_path, "core.proto", "conformance.maps.Maps/Echo", {"prices": {"a": 1.0, "b": -0.0}})
    assert features.first_of(prices, ALL) == ("negative_zero", "reply 1's conformance.maps.Catalog.prices")
    boxed = _method(tmp_path, "wkt.proto", "conformance.wrappers.Wrappers/Echo", {"d": -0.0})
    assert features.first_of(boxed, ALL) == ("negative_zero", "reply 1's google.protobuf.DoubleValue.value")


def test_nan_and_the_infinities_are_named_wherever_they_are(tmp_path):
    method = _method(tmp_path, "core.proto", "conformance.floats.Floats/Echo", {"d": 2.0}, {"fs": [1.0, "Infinity"]})
    assert features.first_of(method, {"non_finite"}) == ("non_finite", "reply 2's conformance.floats.Reals.fs")
    boxed = _method(tmp_path, "wkt.proto", "conformance.wrappers.Wrappers/Echo", {"d": "NaN"})
    assert features.first_of(boxed, {"non_finite"}, "client") == ("non_finite",
                                                                   "request 1's google.protobuf.DoubleValue.value")


def test_a_null_value_in_a_field_is_named_and_one_inside_a_struct_is_not(tmp_path):
    inside = _method(tmp_path, "wkt.proto", "conformance.structs.Structs/Echo", {"body": {"none": None, "neg": -0.0}})
    assert features.first_of(inside, ALL) is None  # a Struct's null and a Value's -0.0 (in a oneof) are carried
    method = _method(tmp_path, "wkt.proto", "conformance.structs.Structs/Echo", {"items": [None]}, {"any_value": None})
    assert features.first_of(method, ALL) == ("null_value", "request 2's conformance.structs.Document.any_value")


def test_the_rust_mechanisms_refuse_what_prost_and_pbjson_lose_before_any_call(tmp_path):
    method = _method(tmp_path, "core.proto", "conformance.floats.Floats/Echo", {"d": -0.0})
    tonic, go = registry.get("grpc-tonic"), registry.get("grpc-go")
    reason = tonic.user_unsupported(method)
    assert reason and reason.startswith("reply 1's conformance.floats.Reals.d is -0.0 in a float without presence")
    assert go.user_unsupported(method) is None  # Go's protobuf writes -0.0: its sign bit is not 0
    nan = _method(tmp_path, "core.proto", "conformance.floats.Floats/Echo", {"d": "NaN"})
    assert tonic.user_unsupported(nan) is None  # prost writes NaN
    warp = registry.get("rest-warp").user_unsupported(nan) or ""
    assert "serde_json, which writes NaN and the infinities as null" in warp


def test_an_enum_number_the_enum_does_not_name_is_named(tmp_path):
    known = _method(tmp_path, "core.proto", "conformance.enums.Enums/Echo", {"priority": "NEGATIVE", "history": [1, 2]})
    assert features.first_of(known, {"unknown_enum"}) is None
    method = _method(tmp_path, "core.proto", "conformance.enums.Enums/Echo", {"priority": 1}, {"history": [1, 99]})
    found = features.first_of(method, {"unknown_enum"})
    assert found == ("unknown_enum", "request 2's conformance.enums.Ticket.history")


def test_a_value_written_wrong_matters_only_to_the_side_that_writes_it(tmp_path):
    """OTLP's export: a NaN in the request, a reply of another type from --reply-file. A JSON server
    reads the NaN ("NaN") and writes none; a JSON client writes it as null."""
    data = tmp_path / "requests.jsonl"
    data.write_text(json.dumps({"d": "NaN"}) + "\n")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"d": 1.0}) + "\n")
    build(UserWorkload(proto=str(CORPUS / "core.proto"), method="conformance.floats.Floats/Echo",
                       data_file=str(data), reply="file", reply_file=str(replies)))
    method = schema.methods()["conformance.floats.Floats/Echo"]
    assert features.first_of(method, {"non_finite"}, "server") is None
    found = features.first_of(method, {"non_finite"}, "client")
    assert found == ("non_finite", "request 1's conformance.floats.Reals.d")
    assert registry.get("rest-warp").user_unsupported(method) is None
    warp_client = native.client("rust", "http-json")
    assert warp_client is not None and "request 1's" in (warp_client.user_unsupported(method) or "")


def test_what_a_client_alone_cannot_carry_leaves_its_server_measured(tmp_path):
    method = _method(tmp_path, "core.proto", "conformance.enums.Enums/Echo", {"priority": 7})
    assert registry.get("grpc-tonic").user_unsupported(method) is None  # prost keeps an open enum's number
    tonic_client = native.client("rust", "grpc")
    assert tonic_client is not None
    assert "reads the run's samples with pbjson" in (tonic_client.user_unsupported(method) or "")
