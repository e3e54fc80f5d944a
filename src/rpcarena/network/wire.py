"""Bytes on the wire per call, counted by the kernel (nftables counters on the server port).

What a contender really puts on the network: every IP packet to and from the
server's port, TCP or UDP (HTTP/3 is QUIC over UDP), so HTTP headers, HTTP/2
frames, TLS records, QUIC packets, TCP/IP headers and pure ACKs all count. The
payload alone is estimated by taking off each packet's IPv4 + TCP-with-timestamps
headers, or IPv4 + UDP headers. Needs root and `nft`; elsewhere the bytes are
simply not measured (and the reason is recorded).

On loopback every packet passes the output hook once, so both directions are counted
there. A server in a network namespace of its own (`rpcarena.network.link`, clients in
another) is counted in its namespace: its replies on the output hook, the requests
arriving for it on the input hook.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass

from rpcarena.network import link
from rpcarena.process import leftovers

HEADER_BYTES = 52  # IPv4 (20) + TCP (20) + timestamp option (12), every segment on loopback
UDP_HEADER_BYTES = 28  # IPv4 (20) + UDP (8)
TRANSPORTS = ("tcp", "udp")


@dataclass(frozen=True)
class Count:
    in_bytes: int
    in_packets: int
    out_bytes: int
    out_packets: int
    udp_packets: int = 0  # of the packets both ways, those that were UDP (the rest TCP)

    def __sub__(self, other: Count) -> Count:
        return Count(self.in_bytes - other.in_bytes, self.in_packets - other.in_packets,
                     self.out_bytes - other.out_bytes, self.out_packets - other.out_packets,
                     self.udp_packets - other.udp_packets)

    def __add__(self, other: Count) -> Count:
        return Count(self.in_bytes + other.in_bytes, self.in_packets + other.in_packets,
                     self.out_bytes + other.out_bytes, self.out_packets + other.out_packets,
                     self.udp_packets + other.udp_packets)


def header_bytes(packets: int, udp_packets: int) -> int:
    """The IP and transport headers of `packets`, `udp_packets` of them UDP and the rest TCP."""
    return HEADER_BYTES * (packets - udp_packets) + UDP_HEADER_BYTES * udp_packets


def unavailable() -> str | None:
    if shutil.which("nft") is None:
        return "nft not found (apt-get install nftables)"
    if os.geteuid() != 0:
        return "counting bytes with nftables needs root"
    return None


def _nft(*args: str, netns: str | None = None, script: str | None = None) -> str:
    """`nft ARGS`, with `script` (commands, one a line: `nft -f -`) on its stdin when given."""
    prefix = link.in_namespace(netns) if netns else []
    done = subprocess.run([*prefix, "nft", *args], input=script, capture_output=True, text=True, timeout=10,
                          check=False)
    if done.returncode != 0:
        raise OSError(done.stderr.strip() or f"nft {' '.join(args)} failed")
    return done.stdout


class Counter:
    """Kernel counters of the packets to and from one port, TCP and UDP, for as long as it lives."""

    def __init__(self, port: int, netns: str | None = None) -> None:
        self.port = port
        self.netns = netns
        self.table = leftovers.name("table", port)
        # (chain, hook, port field): where each direction's packets are seen once
        requests = "input" if netns else "output"
        self.rules = (("requests", requests, "dport"), ("replies", "output", "sport"))

    def __enter__(self) -> Counter:
        # one nft process, one transaction: the table, its chains and their counters at once (a cell's
        # setup was seven processes, its every reading two)
        lines = [f"add table inet {self.table}"]
        for chain, hook, field in self.rules:
            hooked = f"{{ type filter hook {hook} priority 0; policy accept; }}"
            lines.append(f"add chain inet {self.table} {chain} {hooked}")
            lines += [f"add rule inet {self.table} {chain} {transport} {field} {self.port} counter"
                      for transport in TRANSPORTS]
        _nft("-f", "-", netns=self.netns, script="\n".join(lines) + "\n")
        leftovers.register(_what(self.netns, self.table), lambda: _drop(self.netns, self.table))
        return self

    def read(self) -> Count:
        chains = self._read()
        into, out = (self._counters(chains, chain) for chain, _, _ in self.rules)
        return Count(sum(c["bytes"] for c in into.values()), sum(c["packets"] for c in into.values()),
                     sum(c["bytes"] for c in out.values()), sum(c["packets"] for c in out.values()),
                     into["udp"]["packets"] + out["udp"]["packets"])

    def _counters(self, chains: dict[str, dict[str, dict[str, int]]], chain: str) -> dict[str, dict[str, int]]:
        found = chains.get(chain, {})
        if set(found) != set(TRANSPORTS):
            raise OSError(f"nft: no counter of each of {', '.join(TRANSPORTS)} in {self.table} {chain}")
        return found

    def _read(self) -> dict[str, dict[str, dict[str, int]]]:
        """Each chain's counters by the transport its rule matches, the whole table in one listing."""
        data = json.loads(_nft("-j", "list", "table", "inet", self.table, netns=self.netns))
        found: dict[str, dict[str, dict[str, int]]] = {}
        for item in data["nftables"]:
            rule = item.get("rule")
            if rule:
                match, counter = rule["expr"][0]["match"], rule["expr"][1]["counter"]
                found.setdefault(rule["chain"], {})[match["left"]["payload"]["protocol"]] = counter
        return found

    def __exit__(self, *exc: object) -> None:
        _drop(self.netns, self.table)


def _what(netns: str | None, table: str) -> str:
    return f"nft table {table}" + (f" in {netns}" if netns else "")


def _drop(netns: str | None, table: str) -> None:
    try:
        _nft("delete", "table", "inet", table, netns=netns)
    except (OSError, subprocess.TimeoutExpired):
        pass
    leftovers.release(_what(netns, table))
