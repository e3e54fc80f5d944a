"""An emulated network link: the server in a network namespace of its own, behind a rate-limited veth.

For one run, a namespace and a veth pair joining it to the root namespace are
created; both ends of the veth get an `htb` qdisc capped at the link's rate, so
each direction carries at most that many bits per second. Servers run in the
namespace (`ip netns exec NS ...`) bound to its address; clients (and a proxy)
stay in the root namespace and reach them over the veth.

Only the bandwidth is emulated. Latency is not: without `netem` there is no
sound way to add a fixed delay, so the link's round trip is the veth's (a few
microseconds) plus the queueing that the rate limit causes under load.

Everything created is deleted when the link is closed, on an error, on Ctrl-C
and at interpreter exit. Names and addresses are unique per process.
"""

from __future__ import annotations

import atexit
import ipaddress
import itertools
import os
import re
import shutil
import subprocess

from rpcarena.errors import UnavailableError, UsageError

_UNITS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}
_SEQ = itertools.count()
_LIVE: dict[str, Link] = {}
SUBNET = ipaddress.ip_network("10.0.0.0/8")


def parse_rate(text: str) -> int:
    """'100mbit', '20mbit', '1gbit', '512kbit' (tc's decimal units) as bits per second."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(bit|kbit|mbit|gbit)\s*", text.lower())
    if not match or float(match.group(1)) <= 0:
        raise UsageError(f"bad --link {text!r}: give a rate such as 100mbit, 20mbit or 1gbit")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def unavailable() -> str | None:
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"{tool} not found (apt-get install iproute2)"
    if os.geteuid() != 0:
        return "an emulated link (network namespace, veth, htb) needs root"
    return None


def in_namespace(netns: str) -> list[str]:
    """The argv prefix that runs a command inside network namespace `netns`."""
    return ["ip", "netns", "exec", netns]


def _run(*argv: str) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except subprocess.TimeoutExpired:
        raise UnavailableError(f"{' '.join(argv)} timed out") from None
    if done.returncode != 0:
        raise UnavailableError(f"{' '.join(argv)} failed: {done.stderr.strip()}")


def _block(pid: int, seq: int) -> ipaddress.IPv4Network:
    """A /30 of 10.0.0.0/8 for this process and link (checked free in `_create`)."""
    index = ((pid & 0xFFFFF) << 2 | seq & 3) % (SUBNET.num_addresses // 4)
    return ipaddress.ip_network((int(SUBNET.network_address) + 4 * index, 30))


class Link:
    """A namespace for servers, reached from the root namespace through a veth capped at `rate`."""

    def __init__(self, rate: str) -> None:
        self.rate = rate.strip().lower()
        self.bits_per_s = parse_rate(rate)
        pid, seq = os.getpid(), next(_SEQ)
        self.netns = f"rpcarena{pid}x{seq}"
        self.host_if, self.peer_if = f"rpa{pid}h{seq}", f"rpa{pid}n{seq}"  # at most 15 characters
        hosts = list(_block(pid, seq).hosts())
        self.host_address, self.server_address = str(hosts[0]), str(hosts[1])

    @property
    def exec_prefix(self) -> list[str]:
        """What runs a command inside the namespace."""
        return in_namespace(self.netns)

    def __enter__(self) -> Link:
        reason = unavailable()
        if reason:
            raise UnavailableError(f"--link {self.rate}: {reason}")
        _LIVE[self.netns] = self
        try:
            self._create()
        except BaseException:
            self.close()
            raise
        return self

    def _create(self) -> None:
        ns = ("-n", self.netns)
        self._check_free()
        _run("ip", "netns", "add", self.netns)
        _run("ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.peer_if, "netns", self.netns)
        _run("ip", "addr", "add", f"{self.host_address}/30", "dev", self.host_if)
        _run("ip", *ns, "addr", "add", f"{self.server_address}/30", "dev", self.peer_if)
        _run("ip", "link", "set", self.host_if, "up")
        _run("ip", *ns, "link", "set", self.peer_if, "up")
        _run("ip", *ns, "link", "set", "lo", "up")
        for prefix, dev in (((), self.host_if), (ns, self.peer_if)):
            _run("tc", *prefix, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
            _run("tc", *prefix, "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
                 "rate", self.rate, "ceil", self.rate)

    def _check_free(self) -> None:
        """Refuse a block the root namespace already routes somewhere (other than by default)."""
        done = subprocess.run(["ip", "-4", "-o", "route", "show", "to", "match", self.server_address],
                              capture_output=True, text=True, timeout=10, check=False)
        taken = [line for line in done.stdout.splitlines() if line and not line.startswith("default")]
        if taken:
            raise UnavailableError(f"--link: {self.server_address} is already routed here ({taken[0]})")

    def describe(self) -> dict:
        return {"rate": self.rate, "bits_per_s": self.bits_per_s, "netns": self.netns,
                "server_address": self.server_address, "latency": "not emulated (no netem): veth round trip"}

    def close(self) -> None:
        """Delete the veth pair (both ends go together) and the namespace; quiet when already gone."""
        for argv in (("ip", "link", "del", self.host_if), ("ip", "netns", "del", self.netns)):
            subprocess.run(argv, capture_output=True, timeout=10, check=False)
        _LIVE.pop(self.netns, None)

    def __exit__(self, *exc: object) -> None:
        self.close()


@atexit.register
def _cleanup() -> None:
    for link in list(_LIVE.values()):
        link.close()
