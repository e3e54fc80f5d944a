"""proto-frames: grpc-py's messages in tagless's frames; a bad frame is an error reply, never a crash."""

from __future__ import annotations

from rpcarena.codec import frames
from rpcarena.contenders import framed, proto_frames, tagless
from rpcarena.protocol import schema


def test_the_frame_kinds_are_taglesss():
    assert [name for name, _, _ in proto_frames.method_table()] == [name for name, _, _ in tagless.method_table()]


def test_a_body_is_the_grpc_message_itself():
    hello = framed.method_index("SayHello")
    request = schema.message_class("HelloRequest")(name="arena")
    status, body = proto_frames.handle(hello, request.SerializeToString())
    assert status == frames.OK
    assert schema.message_class("HelloReply").FromString(body).message == "Hello arena"


def test_bad_frames_are_error_replies():
    assert proto_frames.handle(len(framed.unary_methods()), b"")[0] == frames.UNKNOWN_METHOD
    assert proto_frames.handle(framed.method_index("EchoInts"), b"\xff\xff\xff\xff")[0] == frames.BAD_REQUEST
