"""multiplexing: one echo of 1 KB, big enough that a lost segment holds a reply back."""

from __future__ import annotations

from rpcarena.workloads import Workload

PREFIX = "multiplexing"

WORKLOADS = (
    Workload(f"{PREFIX}.str1024", "EchoString", "a string of 1,024 characters -> the same string",
             lambda: [{"value": "".join(chr(ord("a") + i % 26) for i in range(1024))}]),
)
