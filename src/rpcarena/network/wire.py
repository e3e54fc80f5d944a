"""Bytes on the wire per call, counted by the kernel (nftables counters on the server port).

What a contender really puts on the network: every IP packet to and from the
server's port, so HTTP headers, HTTP/2 frames, TLS records, TCP/IP headers and
pure ACKs all count. The TCP payload alone is estimated by taking off each
packet's IPv4 + TCP-with-timestamps headers. Needs root and `nft`; elsewhere
the bytes are simply not measured (and the reason is recorded).

A server in a network namespace (`rpcarena.network.link`) sends its packets through
that namespace's output hook, so its port is counted there as well as in the
root namespace (where the clients' packets to it are output), and the two add up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass

from rpcarena.network import link
from rpcarena.orchestration import leftovers

HEADER_BYTES = 52  # IPv4 (20) + TCP (20) + timestamp option (12), every segment on loopback


@dataclass(frozen=True)
class Count:
    in_bytes: int
    in_packets: int
    out_bytes: int
    out_packets: int

    def __sub__(self, other: Count) -> Count:
        return Count(self.in_bytes - other.in_bytes, self.in_packets - other.in_packets,
                     self.out_bytes - other.out_bytes, self.out_packets - other.out_packets)

    def __add__(self, other: Count) -> Count:
        return Count(self.in_bytes + other.in_bytes, self.in_packets + other.in_packets,
                     self.out_bytes + other.out_bytes, self.out_packets + other.out_packets)


def unavailable() -> str | None:
    if shutil.which("nft") is None:
        return "nft not found (apt-get install nftables)"
    if os.geteuid() != 0:
        return "counting bytes with nftables needs root"
    return None


def _nft(*args: str, netns: str | None = None) -> str:
    prefix = link.in_namespace(netns) if netns else []
    done = subprocess.run([*prefix, "nft", *args], capture_output=True, text=True, timeout=10, check=False)
    if done.returncode != 0:
        raise OSError(done.stderr.strip() or f"nft {' '.join(args)} failed")
    return done.stdout


class Counter:
    """Kernel counters of the packets to and from one TCP port, for as long as it lives."""

    def __init__(self, port: int, netns: str | None = None) -> None:
        self.port = port
        self.table = f"rpcarena_{os.getpid()}_{port}"
        self.namespaces = [None, netns] if netns else [None]

    def __enter__(self) -> Counter:
        for netns in self.namespaces:
            self._add(netns)
        return self

    def _add(self, netns: str | None) -> None:
        _nft("add", "table", "inet", self.table, netns=netns)
        leftovers.register(_what(netns, self.table), lambda: _drop(netns, self.table))
        _nft("add", "chain", "inet", self.table, "out",
             "{ type filter hook output priority 0; policy accept; }", netns=netns)
        _nft("add", "rule", "inet", self.table, "out", "tcp", "dport", str(self.port), "counter", netns=netns)
        _nft("add", "rule", "inet", self.table, "out", "tcp", "sport", str(self.port), "counter", netns=netns)

    def read(self) -> Count:
        total = Count(0, 0, 0, 0)
        for netns in self.namespaces:
            total = total + self._read(netns)
        return total

    def _read(self, netns: str | None) -> Count:
        data = json.loads(_nft("-j", "list", "chain", "inet", self.table, "out", netns=netns))
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
        for netns in self.namespaces:
            _drop(netns, self.table)


def _what(netns: str | None, table: str) -> str:
    return f"nft table {table}" + (f" in {netns}" if netns else "")


def _drop(netns: str | None, table: str) -> None:
    try:
        _nft("delete", "table", "inet", table, netns=netns)
    except (OSError, subprocess.TimeoutExpired):
        pass
    leftovers.release(_what(netns, table))
