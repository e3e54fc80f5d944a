"""An emulated network link: clients and servers in namespaces of their own, a delay line between.

`--link` takes a link model (`rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000`), a
bare rate (`100mbit`) or a preset (`lan`, `wifi`, `datacenter`, `cloud-cross-region`: see
PRESETS and docs/network.md for their sources). For a run, `delaynet up` (the Go program in
delayline/) builds three namespaces, client, router and server, joined by veths; the router
sends each direction's packets through an NFQUEUE to `delayline`, which releases each packet
when its time comes: rtt/2 per direction, jitter, serialization at the rate, a tail-drop
queue, random loss. The kernel's TCP at both ends sees the real round trip. Servers run in
the server namespace (`ip netns exec`), drivers and proxies in the client namespace.

Everything is deleted when the link closes, and also when rpcarena dies: delaynet tears the
namespaces down when its standard input (a pipe from rpcarena) closes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from rpcarena.errors import UnavailableError, UsageError
from rpcarena.process import builds, leftovers
from rpcarena.process.children import Child, stopped

READY_TIMEOUT_S = 30.0
MAX_RUNTIME = "24h"  # delaynet's own bound; a run that outlives it has its link torn down

# Each preset with where its figures come from (docs/network.md says more).
PRESETS: dict[str, tuple[str, str]] = {
    "lan": ("rtt=0.3ms,jitter=0.05ms,rate=1gbit",
            "a switched gigabit LAN: 0.2-0.5 ms round trips between two hosts"),
    "wifi": ("rtt=4ms,jitter=1.5ms,loss=0.1%,rate=100mbit",
             "a laptop on 802.11ac Wi-Fi to a wired PC, as usp2018's and predictions' remote runs were"),
    "datacenter": ("rtt=0.1ms,jitter=0.02ms,rate=10gbit",
                   "two VMs in one cloud availability zone: ~100 us round trips"),
    "cloud-cross-region": ("rtt=90ms,jitter=5ms,rate=100mbit",
                           "cs6650's client to its cloud server: gRPC took 93.7 ms per word, one round "
                           "trip per call, against 0.41 ms locally"),
}
_DURATION = re.compile(r"^(\d*\.?\d+)(us|ms|s)$")
_RATE = re.compile(r"^(\d*\.?\d+)(bit|kbit|mbit|gbit)$")
_RATE_UNITS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}
_DURATION_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_KEYS = ("rtt", "jitter", "loss", "rate", "queue", "reorder")


@dataclass(frozen=True)
class LinkModel:
    """What the link does to every packet, as configured (the delay line checks it again)."""

    spec: str  # as delayline reads it
    preset: str | None = None
    rtt_s: float = 0.0
    jitter_s: float = 0.0
    loss: float = 0.0
    bits_per_s: int | None = None

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "preset": self.preset, "rtt_ms": self.rtt_s * 1e3,
                "jitter_ms": self.jitter_s * 1e3, "loss": self.loss, "bits_per_s": self.bits_per_s}


def parse(text: str) -> LinkModel:
    """A --link value: a preset, a bare rate, or key=value terms; a bad one is a one-line error."""
    name = text.strip().lower()
    if name in PRESETS:
        return _model(PRESETS[name][0], preset=name)
    if _RATE.match(name):
        return _model(f"rate={name}")
    return _model(name)


def _model(spec: str, preset: str | None = None) -> LinkModel:
    values: dict[str, Any] = {}
    for term in (t.strip() for t in spec.split(",") if t.strip()):
        key, _, value = term.partition("=")
        if key not in _KEYS or (key != "reorder" and not value):
            raise UsageError(f"bad --link term {term!r}: write e.g. 'rtt=40ms,jitter=4ms,loss=0.1%,"
                             f"rate=100mbit' or a preset ({', '.join(PRESETS)})")
        if key in values:  # refused here, before the delay line starts (it refuses too, but later)
            raise UsageError(f"bad --link {spec!r}: {key} is given twice; keep one")
        values[key] = _value(key, value, term)
    if not values:
        raise UsageError("bad --link '': give a preset, a rate such as 100mbit, or rtt=40ms,...")
    return LinkModel(spec=spec, preset=preset, rtt_s=values.get("rtt", 0.0), jitter_s=values.get("jitter", 0.0),
                     loss=values.get("loss", 0.0), bits_per_s=values.get("rate"))


def _value(key: str, value: str, term: str) -> Any:
    if key in ("rtt", "jitter"):
        match = _DURATION.match(value)
        if match:
            return float(match.group(1)) * _DURATION_UNITS[match.group(2)]
    elif key == "rate":
        match = _RATE.match(value)
        if match and float(match.group(1)) > 0:
            return int(float(match.group(1)) * _RATE_UNITS[match.group(2)])
    elif key == "loss":
        match = re.match(r"^(\d*\.?\d+)%$", value)
        if match and float(match.group(1)) < 100:
            return float(match.group(1)) / 100
    elif key == "queue" and re.match(r"^\d+(b|kb|mb)?$", value):
        return value
    elif key == "reorder":
        return True
    raise UsageError(f"bad --link term {term!r}: rtt and jitter take a duration (40ms, 500us), rate a rate "
                     "(100mbit), loss a percentage (0.1%), queue packets (1000) or bytes (64kb)")


def unavailable() -> str | None:
    """Why no link can be emulated here, or None."""
    missing = [tool for tool in ("ip", "iptables", "ethtool") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not found (run 'make setup', or apt-get install iproute2 iptables ethtool)"
    if psutil.Process().uids().effective != 0:
        return "an emulated link (network namespaces, iptables, NFQUEUE) needs root"
    return builds.tool("delayline").unavailable()


def in_namespace(netns: str) -> list[str]:
    """The argv prefix that runs a command inside network namespace `netns`."""
    return ["ip", "netns", "exec", netns]


class Link:
    """One run's emulated network, held open by a `delaynet up` child process."""

    def __init__(self, model: LinkModel, log: Path, cpus: tuple[int, ...] | None = None) -> None:
        self.model = model
        self.log = log
        self.cpus = cpus  # where the delay line runs (recorded with the results)
        self.child: Child | None = None
        self.up: dict[str, Any] = {}

    @property
    def client_prefix(self) -> list[str]:
        return in_namespace(self.up["client_ns"])

    @property
    def server_prefix(self) -> list[str]:
        return in_namespace(self.up["server_ns"])

    @property
    def netns(self) -> str:
        """The server's namespace, where its port's packets are counted."""
        return str(self.up["server_ns"])

    @property
    def server_address(self) -> str:
        return str(self.up["server_addr"])

    @property
    def delay_line_pid(self) -> int:
        return int(self.up["delayline"]["pid"])

    def __enter__(self) -> Link:
        reason = unavailable()
        if reason:
            raise UnavailableError(f"--link {self.model.spec}: {reason}")
        tool = builds.tool("delayline")
        argv = [*tool.argv("up"), "-delayline", f"{tool.artifact()}-line", "-link", self.model.spec,
                "-max-runtime", MAX_RUNTIME]
        if self.cpus:
            argv += ["-cpus", ",".join(map(str, self.cpus))]
        # Outlives a killed rpcarena just long enough: its stdin closes, and it removes the namespaces.
        self.child = Child(argv, None, self.log, stdin=True, outlive=True)
        line = self.child.read_json(READY_TIMEOUT_S)
        if not line or line.get("event") != "up":
            why = self.child.last_error_line()
            self.close()
            raise UnavailableError(f"--link {self.model.spec}: the delay line did not start ({why}); log: {self.log}")
        self.up = line
        return self

    def describe(self) -> dict[str, Any]:
        return dict(self.model.describe(), delay_line_cpus=list(self.cpus) if self.cpus else None,
                    server_address=self.up.get("server_addr"), namespaces=[self.up.get(k) for k in
                                                                         ("client_ns", "router_ns", "server_ns")])

    def rtt_ms(self, count: int = 5) -> float | None:
        """The link's round trip now, by ping from the client namespace (median of `count`)."""
        done = subprocess.run([*self.client_prefix, "ping", "-n", "-q", "-c", str(count), "-i", "0.02", "-W", "5",
                               self.server_address], capture_output=True, text=True, timeout=60, check=False)
        match = re.search(r"= [\d.]+/([\d.]+)/", done.stdout)
        return float(match.group(1)) if match else None

    def lost(self) -> str | None:
        """Why the link carries no more (the delay line or delaynet died, or is stopped: every call
        across it waits), or None; checked between reads of the drivers, so noticed within a second."""
        if self.child is None:
            return None
        gone = self.child.lost("the delay line's delaynet")
        if gone:
            return f"{gone}; log: {self.log}"
        try:
            dead = psutil.Process(self.delay_line_pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            dead = True
        if dead:
            return f"the delay line (pid {self.delay_line_pid}) died; log: {self.log}"
        if stopped(self.delay_line_pid):
            return f"the delay line (pid {self.delay_line_pid}) is stopped (SIGSTOP?): every call across it waits"
        return None

    def delay_line_cpu_s(self) -> float | None:
        """The delay line's CPU time so far (it counts with the cell that spends it)."""
        try:
            times = psutil.Process(self.delay_line_pid).cpu_times()
        except (psutil.Error, KeyError, ValueError):
            return None
        return float(times.user + times.system)

    def close(self) -> None:
        """Stop delaynet (closing its stdin tears the namespaces down); quiet when already gone. A
        delaynet that was killed removed nothing: its namespaces are removed here."""
        if self.child is not None:
            self.child.close_stdin()
            try:
                self.child.proc.wait(20)
            except subprocess.TimeoutExpired:
                pass
            self.child.stop()
            self.child = None
        for key in ("client_ns", "router_ns", "server_ns"):
            if self.up.get(key) and Path("/run/netns", self.up[key]).exists():
                leftovers.remove_namespace(self.up[key])

    def __exit__(self, *exc: object) -> None:
        self.close()
