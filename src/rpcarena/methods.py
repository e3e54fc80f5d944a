"""What each operation of proto/arena.proto computes: the reference semantics.

Every server, in every language, must answer exactly as these functions do; the
shared test vectors (proto/vectors/arena.json) are produced from them. Python
servers call these functions with their own native values, so the logic lives
here once. Echo operations (EchoInt32, EchoLargeData8192, ...) return their
argument unchanged and need no function.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
UINT32 = 1 << 32


def say_hello(name: str) -> str:
    return "Hello " + name


def average(values: Sequence[int]) -> float:
    """The mean as double(sum as int64) / count, and 0.0 for no values."""
    if not values:
        return 0.0
    return float(sum(values)) / len(values)


def rand_nums(count: int, seed: int) -> list[int]:
    """Numerical Recipes' LCG over uint32, each state read as a signed int32."""
    state = seed % UINT32
    values = []
    for _ in range(count):
        state = (state * LCG_MULTIPLIER + LCG_INCREMENT) % UINT32
        values.append(state - UINT32 if state >= 1 << 31 else state)
    return values


def invert(word: str) -> str:
    """Reverse by Unicode code points ("Speed" -> "deepS")."""
    return word[::-1]


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Euclidean distance, summed left to right as dx*dx + dy*dy + dz*dz."""
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


def _vector(v: dict) -> tuple[float, float, float]:
    return (v.get("x", 0.0), v.get("y", 0.0), v.get("z", 0.0))


_LOGIC = {
    "Void": lambda req: {},
    "Distance": lambda req: {"value": distance(_vector(req["a"]), _vector(req["b"]))},
    "SayHello": lambda req: {"message": say_hello(req.get("name", ""))},
    "Average": lambda req: {"value": average(req.get("values", []))},
    "GetRandNums": lambda req: {"values": rand_nums(req.get("count", 0), req.get("seed", 0))},
    "Invert": lambda req: {"value": invert(req.get("value", ""))},
    # per message on the stream: each Word is answered by its inversion, in order
    "InvertStream": lambda req: {"value": invert(req.get("value", ""))},
}


def _predictions(request: dict) -> dict:
    from rpcarena.workloads import predictions

    return predictions.response(request.get("id_client", ""))


_LOGIC["GetPredictions"] = _predictions  # what the seeded Redis holds for that client


def respond(method: str, request: dict) -> dict:
    """The canonical (proto-JSON, proto field names) response to a canonical request."""
    if method in _LOGIC:
        return _LOGIC[method](request)
    if method.startswith("Echo"):
        return request
    raise KeyError(f"no reference semantics for method {method!r}")
