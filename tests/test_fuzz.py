"""The fuzz targets of fuzz/ as a short, deterministic CI run: a few thousand mutated inputs each."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))

import mutate  # noqa: E402


def _target(name: str):
    spec = importlib.util.spec_from_file_location(name, FUZZ / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tagless_decoder_survives_mutated_frames() -> None:
    target = _target("fuzz_tagless")
    assert mutate.run(target.test_one_input, target.seeds(), 4000, seed=1) >= 4000


def test_typed_json_decoder_survives_mutated_calls() -> None:
    target = _target("fuzz_typed_json")
    assert mutate.run(target.test_one_input, target.seeds(), 3000, seed=2) >= 3000


def test_huge_counts_are_rejected_before_allocating() -> None:
    from rpcarena.codec import frames
    from rpcarena.contenders import tagless

    index = tagless.method_index("EchoInts")
    status, reply = tagless.handle(index, b"\xff\xff\xff\xff" + b"\x00" * 16)
    assert status == frames.BAD_REQUEST and b"exceeds the 20-byte buffer" in reply
    index = tagless.method_index("EchoItems")
    assert tagless.handle(index, b"\xff\xff\xff\x7f")[0] == frames.BAD_REQUEST
