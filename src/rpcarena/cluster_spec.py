"""What `--cluster`, `--server-node` and `--client-nodes` say, parsed once; which node does what.
(Outside `cluster/`, which needs Dask, so that the config checks it looking down.)

A cluster is given as a scheduler's address (`tcp://HOST:8786`), hosts to reach over SSH
(`ssh:hostA,hostB`: Dask's SSHCluster, the scheduler on the first host, one worker on each),
worker processes on this machine (`local:3`), or an emulated link on this machine
(`netns:rtt=10ms,clients=2`: a server node behind the delay line, client nodes before it).

A node is picked by its worker's address, its name, its host, or `resource:NAME` (every worker
started with `--resources NAME=1`). Without `--server-node` the server goes to a worker with the
resource or name `server`, else the first worker by name; without `--client-nodes` the drivers go
to the workers with the resource `client`, else to every other worker: never beside the server
unless asked.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from rpcarena.errors import UsageError
from rpcarena.network import link

KINDS = ("scheduler", "ssh", "local", "netns")
_PROTOCOLS = ("tcp", "tls", "ws", "wss")
# Worker processes (local:N) or client nodes (netns:...,clients=N) started on this machine: each is a
# Python process of ~100 MB that shares the CPUs with the servers and drivers it places.
MAX_NODES = min(64, 4 * (os.cpu_count() or 1))


@dataclass(frozen=True)
class ClusterSpec:
    """A parsed --cluster value."""

    kind: str  # one of KINDS
    address: str = ""  # scheduler: its address
    hosts: tuple[str, ...] = ()  # ssh: the hosts, the scheduler on the first
    workers: int = 0  # local: worker processes; netns: client nodes
    link: str = ""  # netns: the link model

    @property
    def text(self) -> str:
        if self.kind == "scheduler":
            return self.address
        if self.kind == "ssh":
            return "ssh:" + ",".join(self.hosts)
        if self.kind == "local":
            return f"local:{self.workers}"
        return f"netns:{self.link},clients={self.workers}"


def parse(text: str) -> ClusterSpec:
    """A --cluster value, or a one-line UsageError that shows the forms."""
    value = text.strip()
    kind, _, rest = value.partition(":")
    if kind in _PROTOCOLS and rest.startswith("//"):
        return ClusterSpec("scheduler", address=_address(value))
    if kind == "ssh":
        hosts = tuple(h.strip() for h in rest.split(",") if h.strip())
        if hosts:
            return ClusterSpec("ssh", hosts=hosts)
    elif kind == "local" and rest.isdigit() and int(rest) >= 2:
        return ClusterSpec("local", workers=_bounded(int(rest), text, "worker processes"))
    elif kind == "netns" and rest:
        return _netns(rest)
    elif kind not in KINDS and re.fullmatch(r"[\w.-]+:\d+", value):
        return ClusterSpec("scheduler", address=_address(f"tcp://{value}"))
    raise UsageError(f"bad --cluster {text!r}: give a scheduler (tcp://HOST:8786), ssh:HOST_A,HOST_B, "
                     "local:N (N >= 2 worker processes here) or netns:rtt=10ms[,clients=N] (an emulated link here)")


def _netns(rest: str) -> ClusterSpec:
    terms = [t.strip() for t in rest.split(",") if t.strip()]
    clients = [t for t in terms if t.startswith("clients=")]
    model = ",".join(t for t in terms if not t.startswith("clients="))
    count = clients[-1].partition("=")[2] if clients else "1"
    if not count.isdigit() or int(count) < 1:
        raise UsageError(f"bad --cluster netns:{rest}: clients=N takes a whole number of client nodes, at least 1")
    link.parse(model)  # a bad model is the link's own one-line error
    return ClusterSpec("netns", workers=_bounded(int(count), f"netns:{rest}", "client nodes"), link=model)


def _bounded(count: int, text: str, what: str) -> int:
    if count > MAX_NODES:
        raise UsageError(f"bad --cluster {text}: at most {MAX_NODES} {what} on this machine (4 per CPU, 64 at "
                         "most); for more, start Dask on other hosts and give its scheduler (tcp://HOST:8786)")
    return count


def _address(address: str) -> str:
    """A scheduler's address, its host and port checked now rather than after a minute of retries."""
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port == -1 or port == 0 or parts.path not in ("", "/"):
        raise UsageError(f"bad --cluster {address!r}: give a scheduler's host and port, e.g. tcp://10.0.0.5:8786 "
                         "(a port from 1 to 65535)")
    return address


def exposure(cluster: ClusterSpec) -> str | None:
    """A warning for a scheduler reached over plain TCP beyond this machine: anyone who can reach
    it can run code on every node. A cluster started here (local, netns) speaks TLS; one started
    over SSH does not, as Dask's SSHCluster hands its hosts options as JSON, which cannot carry a
    run's in-memory credentials."""
    if cluster.kind == "ssh":
        return (f"--cluster {cluster.address}: Dask's SSHCluster speaks plain TCP, unauthenticated: whoever reaches "
                f"{cluster.hosts[0]} while the run lasts runs code on every node; keep the hosts on a network of your "
                "own, or start Dask with TLS yourself and give tls://")
    parts = urlsplit(cluster.address)
    if cluster.kind != "scheduler" or parts.scheme != "tcp" or _loopback(parts.hostname or ""):
        return None
    return (f"--cluster {cluster.address}: plain TCP, unauthenticated: whoever reaches the scheduler runs code on "
            "every node; start Dask with TLS (dask scheduler --tls-ca-file ...) and give tls://, or keep it on a "
            "network of your own")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Node:
    """One Dask worker, as the scheduler knows it."""

    address: str
    name: str
    resources: dict[str, float] = field(default_factory=dict)
    nthreads: int = 1
    hostname: str = ""  # the machine's own name, as the node reported it

    @property
    def host(self) -> str:
        return urlsplit(self.address).hostname or ""

    def matches(self, selector: str) -> bool:
        if selector.startswith("resource:"):
            return self.resources.get(selector.partition(":")[2], 0) > 0
        return selector in (self.address, self.name, self.host, self.hostname)


@dataclass(frozen=True)
class Roles:
    """Where a cell's server runs and where its drivers run."""

    server: Node
    clients: tuple[Node, ...]


def assign(nodes: Sequence[Node], server: str | None, clients: Sequence[str] | None) -> Roles:
    """The server's node and the client nodes, by the user's selectors or the defaults."""
    ordered = sorted(nodes, key=lambda n: (n.name, n.address))
    if not ordered:
        raise UsageError("the cluster has no workers: start at least two (one serves, one drives)")
    chosen = _pick(ordered, server, "--server-node")[0] if server else _default_server(ordered)
    if clients:
        drivers = [n for selector in clients for n in _pick(ordered, selector, "--client-nodes")]
    else:
        drivers = _default_clients(ordered, chosen)
    return Roles(chosen, tuple({n.address: n for n in drivers}.values()))


def target_clients(nodes: Sequence[Node], clients: Sequence[str] | None) -> tuple[Node, ...]:
    """The nodes that drive an external target (`target --cluster`): rpcarena starts no server,
    so by default every worker drives but the one a server would go to (the resource or name
    `server`, as the testbed's node behind its link); the workers with the resource `client`
    when some have it."""
    ordered = sorted(nodes, key=lambda n: (n.name, n.address))
    if not ordered:
        raise UsageError("the cluster has no workers: start at least one to drive the target")
    if clients:
        drivers = [n for selector in clients for n in _pick(ordered, selector, "--client-nodes")]
    else:
        tagged = [n for n in ordered if n.matches("resource:client")]
        drivers = tagged or [n for n in ordered if not n.matches("resource:server") and n.name != "server"] or ordered
    return tuple({n.address: n for n in drivers}.values())


def _pick(nodes: Sequence[Node], selector: str, option: str) -> list[Node]:
    found = [n for n in nodes if n.matches(selector)]
    if not found:
        raise UsageError(f"bad {option} {selector!r}: no worker has that address, name, host or resource; "
                         f"the workers are {describe(nodes)}")
    return found


def _default_server(nodes: Sequence[Node]) -> Node:
    for wanted in ("resource:server", "server"):
        found = [n for n in nodes if n.matches(wanted)]
        if found:
            return found[0]
    return nodes[0]


def _default_clients(nodes: Sequence[Node], server: Node) -> list[Node]:
    tagged = [n for n in nodes if n.matches("resource:client") and n != server]
    others = tagged or [n for n in nodes if n != server]
    if not others:
        raise UsageError(f"the cluster has one worker ({describe(nodes)}): start another for the clients, or "
                         f"give --client-nodes {nodes[0].name} to drive from the server's own node")
    return others


def describe(nodes: Sequence[Node]) -> str:
    return ", ".join(f"{n.name} ({n.address})" for n in nodes)
