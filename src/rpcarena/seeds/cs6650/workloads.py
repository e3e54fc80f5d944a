"""cs6650: real-time string manipulation; invert each word of a passage, or the whole."""

from __future__ import annotations

from importlib import resources

from rpcarena.workloads import Workload

PREFIX = "cs6650"


def passage() -> str:
    """The Macbeth passage of the seed, as shipped beside this module (macbeth.txt)."""
    return resources.files("rpcarena.seeds.cs6650").joinpath("macbeth.txt").read_text()


WORKLOADS = (
    Workload(f"{PREFIX}.word", "Invert", "Exp. 1/3: one call per word of the passage",
             lambda: [{"value": word} for word in passage().split()]),
    Workload(f"{PREFIX}.text", "Invert", "Exp. 2: the whole passage in one call",
             lambda: [{"value": passage()}]),
    Workload(f"{PREFIX}.stream", "InvertStream",
             "the open question: each word on one bidirectional stream (gRPC) or WebSocket (REST)",
             lambda: [{"value": word} for word in passage().split()], mode="stream"),
)
