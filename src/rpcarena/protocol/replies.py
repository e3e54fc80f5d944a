"""Equality of replies as the worker contract defines it, and error kinds."""

from __future__ import annotations

import math
import socket
from typing import Any

DOUBLE_TOLERANCE = 1e-9
DEFAULTS = (0, 0.0, "", False, None)


def equivalent(got: Any, want: Any, tolerance: float = DOUBLE_TOLERANCE) -> bool:
    """Canonical values equal up to float tolerance; a missing dict key equals its default."""
    if isinstance(want, dict) and isinstance(got, dict):
        keys = set(got) | set(want)
        return all(equivalent(got.get(k, _default_like(want.get(k))), want.get(k, _default_like(got.get(k))),
                              tolerance) for k in keys)
    if isinstance(want, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(got) == len(want) and all(equivalent(g, w, tolerance) for g, w in zip(got, want))
    if _int64_text(got, want) or _int64_text(want, got):
        return int(got) == int(want)  # proto JSON writes int64 as a string
    if isinstance(want, float) or isinstance(got, float):
        if isinstance(got, bool) or isinstance(want, bool) or got is None or want is None:
            return False
        return math.isclose(float(got), float(want), rel_tol=tolerance, abs_tol=tolerance)
    same: bool = got == want  # decoded values: scalars, strings, tuples and views, whose == is a bool
    return same


def _int64_text(text: Any, number: Any) -> bool:
    return (isinstance(text, str) and isinstance(number, int) and not isinstance(number, bool)
            and text.lstrip("-").isdigit())


def _default_like(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, str):
        return ""
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return None


def classify_os_error(error: BaseException) -> str:
    """Error kind of a transport-level failure."""
    if isinstance(error, (socket.timeout, TimeoutError)):
        return "timeout"
    if isinstance(error, (ConnectionError, EOFError, BrokenPipeError)):
        return "connection"
    if isinstance(error, OSError):
        return "connection"
    return "other"


def classify_grpc(error: BaseException, grpc: Any) -> str | None:
    """Error kind of a failed grpcio call (None when it is not a gRPC error).

    UNAVAILABLE means the channel could not reach the server: a connection error,
    as the native workers count it.
    """
    if not (isinstance(error, grpc.RpcError) and hasattr(error, "code")):
        return None
    code = error.code()
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return "timeout"
    if code == grpc.StatusCode.UNAVAILABLE:
        return "connection"
    return f"status_{code.name.lower()}"
