"""The Python tagless server's echo decodes every field and encodes it back, as every other server's does."""

from __future__ import annotations

import struct

from rpcarena.codec import frames
from rpcarena.contenders import tagless
from rpcarena.contenders.framed import unary_methods


def test_a_large_data_echo_makes_every_field_a_python_int_and_sends_the_same_bytes_back():
    kind = tagless.method_index("EchoLargeData8192")
    body = struct.pack("<8192i", *range(-4096, 4096))
    held = tagless.method_table()[kind][1].decode(body)
    assert isinstance(held, memoryview)  # the codec holds a flat message in its wire form
    echoed = tagless.operation("EchoLargeData8192")(held)
    assert isinstance(echoed, tuple) and len(echoed) == 8192 and all(type(v) is int for v in echoed)
    assert tagless.handle(kind, body) == (frames.OK, body)
    assert any(m.name == "EchoLargeData8192" for m in unary_methods())
