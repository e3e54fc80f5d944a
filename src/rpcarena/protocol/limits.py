"""The bounds every server keeps against a hostile peer (docs/worker-contract.md, "Bounds every
server keeps"): the largest request it reads, and how long a connection may stay idle or leave
its replies untaken. The Go, Rust and Java workers keep the same numbers and read the same
setting."""

from __future__ import annotations

import math
import os

# The largest request any server reads: a gRPC message, an HTTP body, a Thrift call, an RPyC or
# own-protocol frame. The largest workload request is about 120 KB (Average of 10,000 int32 as
# JSON); 4 MiB is gRPC's default and over thirty times that. Replies may be longer.
MAX_REQUEST_BYTES = 4 << 20

IDLE_TIMEOUT_S = 60.0
# Lowers the idle timeout (seconds), so a test sees an idle connection closed in a second.
IDLE_TIMEOUT_ENV = "RPCARENA_IDLE_TIMEOUT_S"


SOMAXCONN = "/proc/sys/net/core/somaxconn"


def listen_backlog() -> int:
    """The longest accept queue this system allows (a burst of 1,000 connections met a backlog of 5 in
    the drill and 22 got in within 10 s): every server listens with it."""
    try:
        with open(SOMAXCONN) as limit:
            return max(int(limit.read()), 128)
    except (OSError, ValueError):
        return 4096


def idle_timeout_s() -> float:
    """How long a connection may send nothing, or take none of its replies, before its server
    closes it: 60 s, or RPCARENA_IDLE_TIMEOUT_S when that is a positive number below it. Read
    once, where a server starts."""
    try:
        seconds = float(os.environ.get(IDLE_TIMEOUT_ENV, ""))
    except ValueError:
        return IDLE_TIMEOUT_S
    return seconds if math.isfinite(seconds) and 0 < seconds < IDLE_TIMEOUT_S else IDLE_TIMEOUT_S
