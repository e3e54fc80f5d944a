"""Bounded resources in every server: a count over the cap is refused naming it."""

from __future__ import annotations

import pytest

from rpcarena.codec import frames
from rpcarena.codec import tagless as tagless_codec
from rpcarena.contenders import tagless
from rpcarena.protocol import semantics

CAP = 1_000_000  # the contract's cap on GetRandNums' count and on any count a peer announces


# The cap

def test_the_cap_is_the_contracts() -> None:
    assert semantics.MAX_COUNT == CAP
    assert len(semantics.rand_nums(CAP, 1)) == CAP
    with pytest.raises(semantics.Refused, match=f"GetRandNums count {CAP + 1} is over the cap of {CAP}"):
        semantics.rand_nums(CAP + 1, 1)


def test_a_tagless_repeated_count_over_the_cap_is_a_bad_request() -> None:
    strings = tagless.method_index("EchoStrings")
    body = tagless_codec.varint(CAP + 1) + b"\x00" * (CAP + 1)  # that many empty strings: 1 byte each
    status, reply = tagless.handle(strings, body)
    assert status == frames.BAD_REQUEST and f"over the cap of {CAP}".encode() in reply
    status, _ = tagless.handle(strings, tagless_codec.varint(CAP) + b"\x00" * CAP)
    assert status == frames.OK
