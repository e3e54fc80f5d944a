"""`--reply echo` between two message types (userschema.echo, replies): a valid reply of the fields
the reply type can read, or one line naming --reply-file/--reply-size; never a DecodeError.

The schemas are small, realistic ones: an OTLP-like trace export (span ids as bytes that are no
UTF-8, read by the response as its error message), route_guide's ListFeatures(Rectangle) returns
(stream Feature) (a negative latitude's varint read as a Feature's name), and a proto2 reply with
a required field no request carries."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

from rpcarena.errors import UsageError
from rpcarena.userschema import compiled, echo, replies, samples

OTLP = """syntax = "proto3";
package otlp;
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
                ArrayValue array_value = 5; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status {
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
  string message = 2;
  StatusCode code = 3;
}
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  Status status = 15;
}
message ScopeSpans { repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
service TraceService { rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse); }
"""
SPANS = {"resource_spans": [{
    "resource": {"attributes": [{"key": "service.name", "value": {"string_value": "checkout"}}]},
    "scope_spans": [{"spans": [{
        "trace_id": base64.b64encode(bytes([0xFF, 1, 2, 0xFD, 0xFE, 3] * 2 + [0xFC] * 4)).decode(),
        "span_id": base64.b64encode(bytes(range(0x81, 0x89))).decode(), "name": "GET /cart",
        "start_time_unix_nano": "1700000000000000000", "end_time_unix_nano": "1700000000001000000",
        "attributes": [{"key": "tags", "value": {"array_value": {"values": [{"string_value": "a"},
                                                                          {"double_value": 1.5}]}}}],
        "status": {"code": "STATUS_CODE_OK"}}]}],
    "schema_url": "https://opentelemetry.io/schemas/1.21.0"}]}
ROUTE_GUIDE = """syntax = "proto3";
package routeguide;
message Point { int32 latitude = 1; int32 longitude = 2; }
message Rectangle { Point lo = 1; Point hi = 2; }
message Feature { string name = 1; Point location = 2; }
service RouteGuide { rpc ListFeatures(Rectangle) returns (stream Feature) {} }
"""
KINDS = """syntax = "proto2";
package kinds;
message Inner { optional int32 a = 1; optional string s = 2; }
message Other { optional int64 a = 1; optional bytes s = 2; }
message Request {
  optional int32 small = 1; optional string text = 2; optional Inner inner = 3;
  repeated int32 packed = 4 [packed = true]; optional group Legacy = 5 { optional uint32 x = 6; }
  optional fixed32 f = 7; optional bytes blob = 8;
}
message Reply {
  optional int64 small = 1; optional bytes text = 2; optional Other inner = 3; repeated int64 packed = 4;
  optional group Legacy = 5 { optional int32 x = 6; } optional int32 f = 7; optional string blob = 8;
}
message Needs { required string id = 9; optional int32 small = 1; }
"""


def _types(tmp_path: Path, monkeypatch, text: str, *names: str) -> list[type]:
    """Message classes of a schema compiled as `run --proto` compiles it, in a pool of their own."""
    monkeypatch.setenv("RPCARENA_CACHE", str(tmp_path / "cache"))
    proto = tmp_path / "schema" / "s.proto"
    proto.parent.mkdir(exist_ok=True)
    proto.write_text(text)
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(compiled.descriptor_set(proto)[0]).file:
        pool.Add(file)
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(name)) for name in names]


def _expected(request: dict, request_type: type, reply_type: type) -> dict:
    (reply,) = replies.expected("echo", [request], request_type, reply_type, [])
    json_format.ParseDict(reply, reply_type())  # every language's server parses it from the served file
    return reply


def test_an_otlp_export_echoes_into_its_response_without_the_bytes_it_cannot_read(tmp_path, monkeypatch):
    request_type, reply_type = _types(tmp_path, monkeypatch, OTLP, "otlp.ExportTraceServiceRequest",
                                      "otlp.ExportTraceServiceResponse")
    # read as the response: each ResourceSpans is a partial_success whose error_message would be the
    # ScopeSpans' bytes (the span ids: no UTF-8) and whose rejected_spans the Resource (a message)
    assert _expected(SPANS, request_type, reply_type) == {"partial_success": {}}


def test_route_guides_rectangle_echoes_into_a_feature_keeping_what_reads(tmp_path, monkeypatch):
    rectangle, feature = _types(tmp_path, monkeypatch, ROUTE_GUIDE, "routeguide.Rectangle", "routeguide.Feature")
    south = {"lo": {"latitude": -10, "longitude": 20}, "hi": {"latitude": 30, "longitude": 40}}
    assert _expected(south, rectangle, feature) == {"location": {"latitude": 30, "longitude": 40}}
    # a lo whose encoding is UTF-8 reads as the name, as protobuf's wire compatibility reads it
    north = {"lo": {"latitude": 65, "longitude": 66}, "hi": {"latitude": 1}}
    assert _expected(north, rectangle, feature) == {"name": "\bA\x10B", "location": {"latitude": 1}}


def test_fields_of_the_same_wire_type_are_kept_and_read_recursively(tmp_path, monkeypatch):
    request_type, reply_type = _types(tmp_path, monkeypatch, KINDS, "kinds.Request", "kinds.Reply")
    request = {"small": -3, "text": "héllo", "inner": {"a": 7, "s": "x"}, "packed": [1, -2], "legacy": {"x": 4},
               "f": 9, "blob": base64.b64encode(b"\xff\x00").decode()}
    reply = _expected(request, request_type, reply_type)
    assert reply == {"small": -3, "text": base64.b64encode("héllo".encode()).decode(),
                     "inner": {"a": 7, "s": base64.b64encode(b"x").decode()}, "packed": [1, -2], "legacy": {"x": 4}}
    # f: fixed32 is no varint; blob: bytes that are no UTF-8 are no string: both dropped


def test_a_reply_the_request_cannot_make_valid_is_refused_naming_the_other_replies(tmp_path, monkeypatch):
    request_type, needs = _types(tmp_path, monkeypatch, KINDS, "kinds.Request", "kinds.Needs")
    with pytest.raises(UsageError) as refused:
        replies.expected("echo", [{"small": 1}], request_type, needs, [])
    said = str(refused.value)
    assert "no valid kinds.Needs" in said and "id" in said and "--reply-file" in said and "--reply-size" in said
    assert "\n" not in said


def test_between_two_types_servers_answer_the_replies_made_here(tmp_path, monkeypatch):
    rectangle, feature = _types(tmp_path, monkeypatch, ROUTE_GUIDE, "routeguide.Rectangle", "routeguide.Feature")
    assert replies.served_mode("echo", rectangle, feature) == "file"
    assert replies.served_mode("echo", feature, feature) == "echo"
    assert replies.served_mode("size", rectangle, feature) == "size"
    south = {"lo": {"latitude": -10}, "hi": {"latitude": 30}}
    answer = replies.responder("file", [[south, _expected(south, rectangle, feature)]], rectangle, feature)
    assert samples.canonical(answer(json_format.ParseDict(south, rectangle()))) == {"location": {"latitude": 30}}


@pytest.mark.parametrize("data", [b"\x08", b"\x0a\x05ab", b"\x00\x01", b"\x0b\x08\x01", b"\x0c", b"\x0e",
                                  b"\x08" + b"\xff" * 10 + b"\x01"])
def test_bytes_that_are_no_message_are_said_so(data):
    with pytest.raises(echo.NotAMessage):
        echo.records(data)


def test_a_group_and_a_packed_run_are_read_whole():
    group = b"\x2b\x30\x04\x2c"  # field 5 start, field 6 = 4, field 5 end
    (record,) = echo.records(group)
    assert (record.number, record.wire, record.payload, record.raw) == (5, echo.START_GROUP, b"\x30\x04", group)
    (packed,) = echo.records(b"\x22\x03\x01\xfe\x01")
    assert (packed.number, packed.wire, packed.payload) == (4, echo.LEN, b"\x01\xfe\x01")
