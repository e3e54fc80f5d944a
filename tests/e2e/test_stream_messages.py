"""`run --proto` over a one-way stream records each reply message, as `target --client go` does: the
messages counted, their latency (from the stream's start or the message before it) in a histogram,
and messages/s, by the Python, Go, Rust and Java clients alike (issue 38: `messages: None`)."""

from __future__ import annotations

import json

import pytest

from rpcarena import contenders
from rpcarena.results import load
from tests.conftest import run_cli

ROUTE_GUIDE = """syntax = "proto3";
package routeguide;
message Point { int32 latitude = 1; int32 longitude = 2; }
message Rectangle { Point lo = 1; Point hi = 2; }
message Feature { string name = 1; Point location = 2; }
message RouteSummary { int32 point_count = 1; int32 feature_count = 2; int32 distance = 3; }
service RouteGuide {
  rpc ListFeatures(Rectangle) returns (stream Feature) {}
  rpc RecordRoute(stream Point) returns (RouteSummary) {}
}
"""
SAMPLES = {"ListFeatures": [{"lo": {"latitude": -10, "longitude": 20}, "hi": {"latitude": 30, "longitude": 40}}],
           "RecordRoute": [{"latitude": 1, "longitude": 2}, {"latitude": 3, "longitude": 4}]}
CALLS, K = 20, 5


@pytest.mark.parametrize("method,replies_a_call", [("ListFeatures", K), ("RecordRoute", 1)])
def test_each_reply_message_of_a_one_way_stream_is_recorded(tmp_path, method, replies_a_call):
    proto, data, out = tmp_path / "schema" / "route_guide.proto", tmp_path / "samples.jsonl", tmp_path / "r.json"
    proto.parent.mkdir()
    proto.write_text(ROUTE_GUIDE)
    data.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES[method]))
    chosen = [c for c in ("grpc-py", "grpc-go", "grpc-tonic", "grpc-java") if contenders.get(c).unavailable() is None]
    done = run_cli("run", "--proto", str(proto), "--method", f"routeguide.RouteGuide/{method}", "--data-file",
                   str(data), "--stream-messages", str(K), "--contender", ",".join(chosen), "-n", str(CALLS),
                   "--warmup", "0.2s", "--out", str(out), timeout=3600)
    assert done.returncode == 0, done.stderr
    for cell in load(out).cells:
        assert (cell.status, cell.calls, cell.messages) == ("ok", CALLS, CALLS * replies_a_call), cell.contender
        assert cell.message_latency["count"] == CALLS * replies_a_call and cell.messages_per_s, cell.contender
        assert cell.message_latency["p50_us"] <= cell.latency["max_us"], cell.contender  # a part of some call
