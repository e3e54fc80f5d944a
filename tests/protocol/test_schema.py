"""The schema, its generated section and the shared vectors are consistent."""

from __future__ import annotations

import json
import subprocess
import sys

from google.protobuf import json_format

from rpcarena.protocol import replies, schema, semantics
from tests.conftest import ROOT


def test_largedata_section_is_generated():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_largedata.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_vectors_are_current():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_vectors.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_vector_round_trips_through_protobuf():
    vectors = json.loads((ROOT / "proto" / "vectors" / "arena.json").read_text())["vectors"]
    info = schema.methods()
    for vector in vectors:
        method = info[vector["method"]]
        request = json_format.ParseDict(vector["request"], schema.message_class(method.request)())
        response = json_format.ParseDict(vector["response"], schema.message_class(method.response)())
        back = json_format.MessageToDict(response, preserving_proto_field_name=True)
        assert replies.equivalent(back, vector["response"]), vector["method"]
        assert request.ByteSize() >= 0


def test_largedata_messages_have_distinct_fields():
    descriptor = schema.message_class("LargeData8192").DESCRIPTOR
    assert len(descriptor.fields) == 8192
    assert len({f.number for f in descriptor.fields}) == 8192


def test_reference_semantics():
    assert semantics.invert("Speed") == "deepS"
    assert semantics.say_hello("world") == "Hello world"
    assert semantics.average([]) == 0.0
    assert semantics.average([1, 2]) == 1.5
    assert semantics.distance((0, 0, 0), (3, 4, 12)) == 13.0
    first = semantics.rand_nums(3, 42)
    assert first == semantics.rand_nums(3, 42)
    assert all(-2**31 <= v < 2**31 for v in semantics.rand_nums(1000, 7))
    assert semantics.rand_nums(2, 0)[0] == 1013904223
    assert semantics.checksum() == 0
    assert semantics.checksum(2**31 - 1, 1) == -2**31  # wraps as int32 does in Go, Rust and Java
    assert semantics.checksum(-5, 2, 2) == -1


def test_every_method_has_semantics():
    for name, method in schema.methods().items():
        if method.streaming or method.service != schema.SERVICE:
            continue  # a stream answers per message as Invert does; other services answer from their store
        assert semantics.respond(name, {} if name == "Void" else _minimal(method.request)) is not None


def _minimal(message: str) -> dict:
    default = json_format.MessageToDict(schema.message_class(message)(), preserving_proto_field_name=True,
                                        always_print_fields_with_no_presence=True)
    if message == "VectorPair":
        return {"a": {"x": 0.0, "y": 0.0, "z": 0.0}, "b": {"x": 1.0, "y": 0.0, "z": 0.0}}
    return default
