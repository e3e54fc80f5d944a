"""One configuration object for a run, parsed and validated once."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rpcarena.errors import UsageError
from rpcarena.network import link
from rpcarena.network.proxy import VIAS
from rpcarena.orchestration.placement import POLICIES
from rpcarena.worker.pacer import ARRIVALS

_UNITS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "us": 1e-6}


def parse_duration(text: str | float | None, option: str) -> float | None:
    """'10s', '500ms', '2m' or a number of seconds."""
    if text is None or isinstance(text, (int, float)):
        return None if text is None else float(text)
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ms|us|s|m|min)?\s*", text)
    if not match:
        raise UsageError(f"bad {option} {text!r}: write a duration such as 10s, 500ms or 2m")
    return float(match.group(1)) * _UNITS[match.group(2) or "s"]


def parse_ints(text: str | list[int], option: str, minimum: int = 1) -> list[int]:
    if isinstance(text, list):
        values = text
    else:
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise UsageError(f"bad {option} {text!r}: write whole numbers separated by commas, e.g. 1,8,32") from None
    if not values or any(v < minimum for v in values):
        raise UsageError(f"bad {option} {text!r}: every value must be at least {minimum}")
    return values


def parse_names(text: str | list[str] | None) -> list[str] | None:
    if text is None or isinstance(text, list):
        return text
    return [part.strip() for part in text.split(",") if part.strip()]


@dataclass
class RunConfig:
    """Everything that decides what a run measures."""

    contenders: list[str]
    workloads: list[str]
    clients: list[int] = field(default_factory=lambda: [1])
    client_drivers: list[str] | None = None
    calls: int | None = None
    duration_s: float | None = None
    warmup_s: float = 1.0
    repeat: int = 1
    pin: str = "split"
    host: str = "127.0.0.1"
    port: int = 0
    timeout_ms: int = 5000
    cell_timeout_s: float = 600.0
    sample_limit: int = 10_000
    rate_per_s: float | None = None
    arrival: str = "constant"
    fail_fast: bool = False
    redis_url: str | None = None
    via: str | None = None  # "haproxy": HTTP cells through a proxy (rpcarena.network.proxy)
    link: str | None = None  # "cloud-cross-region", "rtt=40ms,rate=100mbit": an emulated link (network.link)
    out: Path = Path("results/arena.json")
    cluster: str | None = None  # "tcp://HOST:8786", "ssh:a,b", "local:3", "netns:rtt=10ms": nodes (rpcarena.cluster)
    server_node: str | None = None  # which node serves: an address, a name, a host or resource:NAME
    client_nodes: list[str] | None = None  # which nodes drive (default: every other node)

    def __post_init__(self) -> None:
        if self.calls is None and self.duration_s is None:
            self.calls = 1000
        if self.calls is not None and self.calls < 1:
            raise UsageError("bad --calls: give at least 1 call")
        if self.duration_s is not None and self.duration_s <= 0:
            raise UsageError("bad --duration: give a positive duration such as 10s")
        if self.warmup_s < 0:
            raise UsageError("bad --warmup: give zero or a positive duration such as 2s")
        if self.repeat < 1:
            raise UsageError("bad --repeat: give at least 1 trial")
        if self.pin not in POLICIES:
            raise UsageError(f"bad --pin {self.pin!r}: use one of {', '.join(POLICIES)}")
        if self.arrival not in ARRIVALS:
            raise UsageError(f"bad --arrival {self.arrival!r}: use one of {', '.join(ARRIVALS)}")
        if self.rate_per_s is not None and self.rate_per_s <= 0:
            raise UsageError("bad --rate: give a positive number of calls per second")
        if not 0 <= self.port < 65536:
            raise UsageError(f"bad --port {self.port}: give 0 (a free port) or a port below 65536")
        if self.timeout_ms < 1:
            raise UsageError("bad --timeout: give a positive duration such as 5s")
        if self.via is not None and self.via not in VIAS:
            raise UsageError(f"bad --via {self.via!r}: use one of {', '.join(VIAS)}")
        if self.link is not None:
            link.parse(self.link)
        self._check_cluster()

    def _check_cluster(self) -> None:
        if self.cluster is None:
            if self.server_node or self.client_nodes:
                raise UsageError("--server-node and --client-nodes place work on a cluster's nodes: add --cluster")
            return
        from rpcarena.cluster import spec
        spec.parse(self.cluster)
        if self.link or self.via:
            raise UsageError("--cluster measures across the network between its nodes: drop --link and --via "
                             "(for an emulated link between nodes, use --cluster netns:MODEL)")

    def to_json(self) -> dict:
        out = asdict(self)
        out["out"] = str(self.out)
        return out
