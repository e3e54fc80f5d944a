"""Fuzz target: the typed-json server's request path (envelope, @type checks, field validation).

    .venv/bin/python fuzz/fuzz_typed_json.py [atheris options]  # coverage-guided, with atheris
    pytest tests/test_fuzz.py                                    # bounded mutation loop in CI

Any outcome but a status reply is a bug.
"""

from __future__ import annotations

import sys

from rpcarena.codec import frames
from rpcarena.contenders import typed_json

STATUSES = {frames.OK, frames.BAD_REQUEST, frames.UNKNOWN_METHOD, frames.INTERNAL}


def test_one_input(data: bytes) -> None:
    status, reply = typed_json.handle(0, data)
    assert status in STATUSES and isinstance(reply, bytes)


def seeds() -> list[bytes]:
    """Valid calls of the canonical workloads (large ones cut to keep inputs small)."""
    from rpcarena import contenders, seeds
    from rpcarena.codec import typed_json as tj
    from rpcarena.protocol.schema import methods

    out = []
    for w in seeds.WORKLOADS.values():
        if contenders.get("typed-json").unsupported(w.method):
            continue  # streams, and services it does not serve (predictions)
        arg = tj.to_typed(tj.descriptor(methods()[w.method].request), w.requests[0])
        out.append(typed_json.call_body(w.method, arg)[:4096])
    return out


if __name__ == "__main__":
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
