"""The judge of a user's replies (`userschema.judge`): exact as the user's schema reads them, whichever
form a mechanism hands them in (a message, a proto JSON dict), with NaN payloads the one tolerance."""

from __future__ import annotations

import struct

import pytest
from google.protobuf import json_format

from rpcarena.protocol import schema
from rpcarena.userschema import compiled, judge
from tests.helpers import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "conformance"


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RPCARENA_CACHE", str(tmp_path_factory.mktemp("cache")))
        schema.add_user(compiled.descriptor_set(CORPUS / "core.proto")[0])
        yield lambda name: judge.Judge(schema.message_class(name))


def test_an_absent_submessage_is_not_an_empty_one(core):
    outer = core("conformance.nested.Outer")
    assert outer.same({"label": "x"}, {"label": "x"})
    assert not outer.same({"label": "x", "middle": {}}, {"label": "x"})
    assert not outer.same({"label": "x"}, {"label": "x", "middle": {}})
    assert outer.explain({"label": "x", "middle": {"inner": {}}}, {"label": "x", "middle": {}}) == (
        "at middle.inner: expected (absent), got {}")


def test_an_optional_field_set_to_its_default_is_not_unset(core):
    settings = core("conformance.optional.Settings")
    assert not settings.same({}, {"retries": 0})
    assert settings.same({"retries": 0}, {"retries": 0})


def test_minus_zero_is_not_zero_and_nan_is_nan_whatever_its_payload(core):
    reals = core("conformance.floats.Reals")
    assert not reals.same({"d": 0.0}, {"d": -0.0})
    assert reals.explain({"ds": [1.0, 0.0]}, {"ds": [1.0, -0.0]}) == "at ds[1]: expected -0.0, got 0.0"
    other_nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]
    message = reals.reply_type(d=other_nan)
    assert message.SerializeToString() != reals.reply_type(d=float("nan")).SerializeToString()
    assert reals.same(message, {"d": "NaN"})


def test_a_reply_in_another_proto_json_spelling_is_the_same_message(core):
    """A server's proto JSON may use JSON names, int64 as strings, enum names: the same message."""
    numbers = core("conformance.scalars.Numbers")
    assert numbers.same({"i64": "-1", "u64": "18446744073709551615"}, {"i64": -1, "u64": 18446744073709551615})
    ticket = core("conformance.enums.Ticket")
    assert ticket.same({"priority": "HIGH", "history": [7]}, {"priority": 2, "history": [7]})
    assert not ticket.same({"priority": 7}, {"priority": 2})


def test_a_field_the_schema_lacks_or_a_dropped_unknown_field_is_a_wrong_answer(core):
    reals = core("conformance.floats.Reals")
    assert not reals.same({"d": 1.0, "extra": 1}, {"d": 1.0})
    with_unknown = reals.reply_type.FromString(reals.reply_type(d=1.0).SerializeToString() + b"\x78\x05")
    assert not reals.same(reals.reply_type(d=1.0), with_unknown)
    assert "unknown fields" in reals.explain(reals.reply_type(d=1.0), with_unknown)


def test_a_server_streams_replies_are_judged_one_by_one(core):
    feature = core("routeguide.Feature")
    assert feature.same([{"name": "a"}, {"name": "b"}], [{"name": "a"}, {"name": "b"}])
    assert not feature.same([{"name": "a"}], [{"name": "a"}, {"name": "a"}])
    assert "expected 2 replies, got 1" in feature.explain([{"name": "a"}], [{"name": "a"}, {"name": "a"}])


def test_an_extension_dropped_is_a_wrong_answer(tmp_path, monkeypatch):
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path))
    schema.add_user(compiled.descriptor_set(CORPUS / "proto2.proto")[0])
    base = judge.Judge(schema.message_class("conformance.proto2_extension.Base"))
    sent = {"id": "e", "[conformance.proto2_extension.note]": "hi"}
    assert base.same(json_format.ParseDict(sent, base.reply_type(), descriptor_pool=schema.user_pool()), sent)
    assert not base.same({"id": "e"}, sent)
    assert "proto2_extension.note" in base.explain({"id": "e"}, sent)
