"""Bytes on the wire per call, counted by the kernel (nftables counters on the server port).

What a contender really puts on the network: every IP packet to and from the
server's port, so HTTP headers, HTTP/2 frames, TLS records, TCP/IP headers and
pure ACKs all count. The TCP payload alone is estimated by taking off each
packet's IPv4 + TCP-with-timestamps headers. Needs root and `nft`; elsewhere
the bytes are simply not measured (and the reason is recorded).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
from dataclasses import dataclass

HEADER_BYTES = 52  # IPv4 (20) + TCP (20) + timestamp option (12), every segment on loopback
_TABLES: set[str] = set()


@dataclass(frozen=True)
class Count:
    in_bytes: int
    in_packets: int
    out_bytes: int
    out_packets: int

    def __sub__(self, other: "Count") -> "Count":
        return Count(self.in_bytes - other.in_bytes, self.in_packets - other.in_packets,
                     self.out_bytes - other.out_bytes, self.out_packets - other.out_packets)


def unavailable() -> str | None:
    if shutil.which("nft") is None:
        return "nft not found (apt-get install nftables)"
    if os.geteuid() != 0:
        return "counting bytes with nftables needs root"
    return None


def _nft(*args: str) -> str:
    done = subprocess.run(["nft", *args], capture_output=True, text=True, timeout=10, check=False)
    if done.returncode != 0:
        raise OSError(done.stderr.strip() or f"nft {' '.join(args)} failed")
    return done.stdout


class Counter:
    """Kernel counters of the packets to and from one TCP port, for as long as it lives."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.table = f"rpcarena_{os.getpid()}_{port}"

    def __enter__(self) -> "Counter":
        _nft("add", "table", "inet", self.table)
        _TABLES.add(self.table)
        _nft("add", "chain", "inet", self.table, "out",
             "{ type filter hook output priority 0; policy accept; }")
        _nft("add", "rule", "inet", self.table, "out", "tcp", "dport", str(self.port), "counter")
        _nft("add", "rule", "inet", self.table, "out", "tcp", "sport", str(self.port), "counter")
        return self

    def read(self) -> Count:
        data = json.loads(_nft("-j", "list", "chain", "inet", self.table, "out"))
        counters = {}
        for item in data["nftables"]:
            rule = item.get("rule")
            if not rule:
                continue
            field = rule["expr"][0]["match"]["left"]["payload"]["field"]
            counters[field] = rule["expr"][1]["counter"]
        into, out = counters["dport"], counters["sport"]
        return Count(into["bytes"], into["packets"], out["bytes"], out["packets"])

    def __exit__(self, *exc: object) -> None:
        _drop(self.table)


def _drop(table: str) -> None:
    try:
        _nft("delete", "table", "inet", table)
    except (OSError, subprocess.TimeoutExpired):
        pass
    _TABLES.discard(table)


@atexit.register
def _cleanup() -> None:
    for table in list(_TABLES):
        _drop(table)
