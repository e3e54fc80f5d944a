"""Fuzz target: the tagless server's request path (frame reader, method table, decoder).

    .venv/bin/python fuzz/fuzz_tagless.py [atheris options]     # coverage-guided, with atheris
    pytest tests/test_fuzz.py                                    # bounded mutation loop in CI

Input layout: the first byte picks a method, the rest is the request body; the
same bytes are also read as a whole frame stream. Any outcome but a status
reply or a FrameError/ConnectionError is a bug.
"""

from __future__ import annotations

import io
import sys

from rpcarena.codec import frames
from rpcarena.contenders import tagless

STATUSES = {frames.OK, frames.BAD_REQUEST, frames.UNKNOWN_METHOD, frames.INTERNAL}
SMALL_FRAME = 1 << 20


def test_one_input(data: bytes) -> None:
    if not data:
        return
    status, reply = tagless.handle(data[0], data[1:])
    assert status in STATUSES and isinstance(reply, bytes)
    reader = io.BytesIO(data)
    try:
        while True:
            frames.read_frame(reader, SMALL_FRAME)
    except ConnectionError:  # end of stream, truncated or oversized frame: the connection closes
        pass


def seeds() -> list[bytes]:
    """Valid requests of every canonical workload: method index byte + tagless body."""
    from rpcarena import contenders, seeds
    from rpcarena.codec.tagless import from_dict

    out = []
    canonical = {seed.workloads.PREFIX for seed in seeds.SEEDS}  # not a user's schema another test registered
    for w in seeds.WORKLOADS.values():
        if w.suite not in canonical or contenders.get("tagless").unsupported(w.method):
            continue  # streams, and services it does not serve (predictions)
        index = tagless.method_index(w.method)
        request = tagless.method_table()[index][1]
        for r in w.requests:
            body = request.encode(from_dict(request.descriptor, r))
            out.append(bytes([index]) + body[:4096])
            out.append(frames.pack(7, index, body[:4096]))
    return out


if __name__ == "__main__":
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
