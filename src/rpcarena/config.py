"""One configuration object for a run, parsed and validated once."""

from __future__ import annotations

import dataclasses
import math
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from rpcarena import cluster_spec
from rpcarena.contract import ARRIVALS
from rpcarena.errors import UsageError
from rpcarena.network import link
from rpcarena.network.proxy import VIAS
from rpcarena.process.placement import POLICIES

_UNITS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "us": 1e-6, "h": 3600.0}
# a part of a duration; several make a compound one, as Go's time.ParseDuration reads them ("1m30s")
_DURATION_PART = re.compile(r"([0-9]*\.?[0-9]+)(ms|us|min|s|m|h)")
# Bounds beyond which a value is a typo, not a plan (and would only spin, or overflow a worker's int64).
MAX_CLIENTS = 10_000  # each client is a connection, a thread or a task
MAX_CALLS = 10**9  # per cell; longer runs: --duration
MAX_SECONDS = 86_400.0  # any duration or timeout: a day
MIN_INTERVAL_S, MAX_INTERVAL_S = 0.01, 3600.0  # --interval: finer costs a histogram per 10 ms per client
MIN_TIMEOUT_MS = 0.1  # 100 us: a shorter deadline measures the clock more than the call
MAX_REPEAT = 1_000
MAX_SAMPLES = 10**7
MAX_RATE = 10**9
REDIS_SCHEMES = ("redis", "rediss", "unix")
_T = TypeVar("_T")
CellKey = tuple[str, str | None, str, int]  # RunConfig.cells: contender, client (None: its first), workload, clients


def parse_duration(text: str | float | None, option: str) -> float | None:
    """'10s', '500ms', '2m', '1m30s' (a number given by code is seconds). Typed text needs its unit, as
    ghz asks: a bare '5' was read as 5 seconds where a user may have meant 5 ms; only '0' needs none."""
    if text is None or isinstance(text, (int, float)):
        return None if text is None else float(text)
    bare = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*", text)
    if bare and float(bare.group(1)) != 0:
        raise UsageError(f"bad {option} {text!r}: give its unit, e.g. {bare.group(1)}s or {bare.group(1)}ms")
    parts = _DURATION_PART.findall(text.replace(" ", ""))
    if bare is None and (not parts or "".join(n + u for n, u in parts) != text.replace(" ", "")):
        raise UsageError(f"bad {option} {text!r}: write a duration such as 10s, 500ms, 2m or 1m30s")
    seconds = float(sum(float(number) * _UNITS[unit] for number, unit in parts))
    if seconds > MAX_SECONDS:
        raise UsageError(f"bad {option} {text!r}: at most a day (86400s)")
    return seconds


def parse_rate(text: str | float | None) -> tuple[float | None, list[dict[str, float]] | None]:
    """--rate: '1000' (calls per second), or stages as k6's ramping arrival rate, '500:10s,2000:20s'
    -> (the first stage's rate, [{rate_per_s, duration_s}, ...]). Each stage needs its duration's
    unit, as -z does; a plain rate has no stages."""
    if text is None or isinstance(text, (int, float)):
        return (None if text is None else float(text)), None
    if ":" not in text:
        try:
            return float(text), None
        except ValueError:
            raise UsageError(f"bad --rate {text!r}: give calls per second (1000) or stages such as "
                             "500:10s,2000:20s") from None
    stages = [_stage(part, text) for part in text.split(",")]
    return stages[0]["rate_per_s"], stages


def _stage(part: str, text: str) -> dict[str, float]:
    rate, _, duration = part.partition(":")
    try:
        rate_per_s = float(rate)
    except ValueError:
        raise UsageError(f"bad --rate stage {part.strip()!r} in {text!r}: write RATE:DURATION, "
                         "e.g. 500:10s,2000:20s") from None
    if not duration.strip():
        raise UsageError(f"bad --rate stage {part.strip()!r} in {text!r}: give its duration, e.g. {rate.strip()}:10s")
    seconds = parse_duration(duration, f"--rate stage {part.strip()!r}")
    if not seconds:
        raise UsageError(f"bad --rate stage {part.strip()!r}: a stage lasts a positive time, e.g. 10s")
    return {"rate_per_s": rate_per_s, "duration_s": seconds}


def parse_ints(text: str | list[int], option: str, minimum: int = 1) -> list[int]:
    """'1,8,32' -> [1, 8, 32]; an empty part ('1,,2') is refused, not skipped: it is a typo."""
    if isinstance(text, list):
        values = text
    else:
        try:
            values = [int(part) for part in text.split(",")]
        except ValueError:
            raise UsageError(f"bad {option} {text!r}: write whole numbers separated by commas, e.g. 1,8,32") from None
    if not values or any(v < minimum for v in values):
        raise UsageError(f"bad {option} {text!r}: every value must be at least {minimum}")
    return _once(values, text, option)


def parse_names(text: str | list[str] | None, option: str = "names") -> list[str] | None:
    """'a,b' -> ['a', 'b']; '' or an empty part (',,,', 'a,,b') is refused: an option given is never
    nothing, or a run would measure 0 cells and exit 0."""
    if text is None or isinstance(text, list):
        return text
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise UsageError(f"bad {option} {text!r}: give one or more names separated by commas, none empty")
    return _once(names, text, option)


def _once(values: list[_T], text: object, option: str) -> list[_T]:
    """`values` when none is given twice: two cells under one key (`-c 1,1`, `--client py,py`) would
    each be stored as the same cell, and read as one."""
    twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if twice is not None:
        raise UsageError(f"bad {option} {text!r}: {twice} is given twice; give each once")
    return values


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides what a run measures."""

    contenders: list[str]
    workloads: list[str]
    clients: list[int] = field(default_factory=lambda: [1])
    client_drivers: list[str] | None = None
    calls: int | None = None
    duration_s: float | None = None
    warmup_s: float = 1.0
    # a driver with a JIT (the JVM) warms up past warmup_s until its compiler is quiet, at most this
    # long: None, its manifest's max_warmup_s; a value at or below warmup_s keeps warmup_s (--warmup-max)
    warmup_max_s: float | None = None
    repeat: int = 1
    order_seed: int | None = None  # contenders shuffled per trial from this seed (recorded); None: rotated
    pin: str = "split"
    host: str = "127.0.0.1"
    port: int = 0
    timeout_ms: float = 5000  # fractional below 1 ms (--timeout 500us); workers get whole_timeout_ms
    cell_timeout_s: float = 600.0
    sample_limit: int = 10_000
    interval_s: float = 1.0  # each cell's time series: one HdrHistogram per interval (--interval)
    rate_per_s: float | None = None  # with rate_stages: the first stage's rate
    rate_stages: list[dict[str, float]] | None = None  # --rate 500:10s,2000:20s: [{rate_per_s, duration_s}]
    arrival: str = "constant"
    fail_fast: bool = False
    redis_url: str | None = None
    via: str | None = None  # "haproxy": HTTP cells through a proxy (rpcarena.network.proxy)
    link: str | None = None  # "cloud-cross-region", "rtt=40ms,rate=100mbit": an emulated link (network.link)
    out: Path = Path("results/arena.json")
    cluster: str | None = None  # "tcp://HOST:8786", "ssh:a,b", "local:3", "netns:rtt=10ms": nodes (rpcarena.cluster)
    server_node: str | None = None  # which node serves: an address, a name, a host or resource:NAME
    client_nodes: list[str] | None = None  # which nodes drive (default: every other node)
    # --proto: the workload from the user's schema, as typed (rpcarena.userschema.workload.UserWorkload)
    user_schema: dict[str, Any] | None = None
    connections: int | None = None  # --connections M: each cell's clients share M connections (None: one each)
    # --max-error-rate: the share of a cell's calls sent that may fail before it is failed
    # (orchestration.error_gate); None: no gate (--find-max's probes go past failures on purpose)
    max_error_rate: float | None = 0.0
    # only these cells of the product (a suite's --quick: the cells its claims read), each
    # (contender, client, workload, clients), client None for the contender's first client; None: every cell
    cells: list[CellKey] | None = None

    def __post_init__(self) -> None:
        if self.cells is not None:  # a document's JSON gives lists
            self._settle(cells=[(str(c), None if k is None else str(k), str(w), int(n)) for c, k, w, n in self.cells])
        if self.rate_stages:
            self._stage_the_phase()
        if self.calls is None and self.duration_s is None:
            self._settle(calls=1000)
        self._check_counts()
        self._check_times()
        self._check_names()
        self._check_network()

    def _stage_the_phase(self) -> None:
        """Rate stages fix the measured phase: their durations added, the first stage's rate."""
        stages = self.rate_stages or []
        total = sum(s["duration_s"] for s in stages)
        if self.calls is not None:
            raise UsageError("--rate stages and -n/--calls both given: the stages set how long a cell lasts, "
                             "drop -n")
        if self.duration_s is not None and not math.isclose(self.duration_s, total):
            raise UsageError(f"--rate stages last {total:g}s but -z/--duration is {self.duration_s:g}s: drop -z")
        self._settle(duration_s=total, rate_per_s=stages[0]["rate_per_s"])

    def _settle(self, **values: object) -> None:
        """Construction's last word on the fields the options imply (a frozen instance is set so
        only here, inside `__post_init__`, before anyone holds it); later changes are `replace`s."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _check_counts(self) -> None:
        if self.calls is not None and not 1 <= self.calls <= MAX_CALLS:
            raise UsageError(f"bad --calls {self.calls}: give 1 to {MAX_CALLS:,} calls (longer: --duration)")
        if any(not 1 <= c <= MAX_CLIENTS for c in self.clients):
            raise UsageError(f"bad --clients {self.clients}: each level from 1 to {MAX_CLIENTS:,} clients")
        if self.connections is not None and not 1 <= self.connections <= min(self.clients):
            raise UsageError(f"bad --connections {self.connections}: give 1 to {min(self.clients)} "
                             f"(the fewest --clients: clients share connections, never the other way)")
        if self.max_error_rate is not None and not 0 <= self.max_error_rate <= 1:
            raise UsageError(f"bad --max-error-rate {self.max_error_rate:g}: give a share of the calls sent from 0% "
                             "to 100%, such as 1% or 0.1%")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise UsageError(f"bad --repeat {self.repeat}: give 1 to {MAX_REPEAT:,} trials")
        if not 1 <= self.sample_limit <= MAX_SAMPLES:
            raise UsageError(f"bad --samples {self.sample_limit}: keep 1 to {MAX_SAMPLES:,} raw latencies per cell")
        rates: list[float | None] = [s["rate_per_s"] for s in self.rate_stages or []] or [self.rate_per_s]
        for rate in rates:
            if rate is not None and not (math.isfinite(rate) and 0 < rate <= MAX_RATE):
                raise UsageError(f"bad --rate {rate:g}: give a positive number of calls per second, "
                                 f"at most {MAX_RATE:,}")

    def _check_times(self) -> None:
        for option, value, least in (("--duration", self.duration_s, "a positive duration such as 10s"),
                                     ("--cell-timeout", self.cell_timeout_s, "a positive duration such as 600s")):
            if value is not None and not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
                raise UsageError(f"bad {option} {value:g}s: give {least}, at most a day")
        if not (math.isfinite(self.warmup_s) and 0 <= self.warmup_s <= MAX_SECONDS):
            raise UsageError("bad --warmup: give zero or a positive duration such as 2s, at most a day")
        if self.warmup_max_s is not None and not (math.isfinite(self.warmup_max_s)
                                                  and 0 <= self.warmup_max_s <= MAX_SECONDS):
            raise UsageError("bad --warmup-max: give zero or a positive duration such as 30s, at most a day")
        if not (math.isfinite(self.interval_s) and MIN_INTERVAL_S <= self.interval_s <= MAX_INTERVAL_S):
            raise UsageError(f"bad --interval {self.interval_s:g}s: give a duration from 10ms to 1h, "
                             "such as 1s or 250ms")
        if not MIN_TIMEOUT_MS <= self.timeout_ms <= MAX_SECONDS * 1000:
            raise UsageError("bad --timeout: give a duration from 100us to a day, such as 5s, 2ms or 500us")

    def _check_names(self) -> None:
        if self.pin not in POLICIES:
            raise UsageError(f"bad --pin {self.pin!r}: use one of {', '.join(POLICIES)}")
        if self.arrival not in ARRIVALS:
            raise UsageError(f"bad --arrival {self.arrival!r}: use one of {', '.join(ARRIVALS)}")
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
        cluster_spec.parse(self.cluster)
        if self.link or self.via:
            raise UsageError("--cluster measures across the network between its nodes: drop --link and --via "
                             "(for an emulated link between nodes, use --cluster netns:MODEL)")

    def _check_network(self) -> None:
        if not 0 <= self.port < 65536:
            raise UsageError(f"bad --port {self.port}: give 0 (a free port) or a port below 65536")
        check_host(self.host)
        if self.redis_url is not None:
            check_redis_url(self.redis_url)

    @property
    def whole_timeout_ms(self) -> int:
        """The timeout in the worker contract's whole milliseconds, rounded up (never shorter than asked);
        target clients get the exact one besides (`target_runner.cells`)."""
        return max(1, math.ceil(self.timeout_ms))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["out"] = str(self.out)
        return out

    @classmethod
    def from_json(cls, data: object, where: str) -> RunConfig:
        """The configuration a results document records, checked as a command line is."""
        fields = {f.name for f in dataclasses.fields(cls)}
        if not isinstance(data, dict) or not {"contenders", "workloads"} <= set(data) or set(data) - fields:
            raise UsageError(f"{where} records no run configuration this rpcarena can repeat: "
                             "measure it again into a new --out")
        try:
            return cls(**dict(data, out=Path(str(data.get("out")))))
        except TypeError as error:
            raise UsageError(f"{where}: its configuration does not read ({error}): "
                             "measure it again into a new --out") from None

    def differences(self, other: RunConfig, ignore: tuple[str, ...] = ("out", "fail_fast")) -> list[str]:
        """'--calls 5 -> 6' for every field (but `ignore`) on which `other` differs from this one."""
        mine, theirs = self.to_json(), other.to_json()
        return [f"{_option(name)} {_shown(mine[name])} -> {_shown(theirs[name])}" for name in mine
                if name not in ignore and mine[name] != theirs[name]]


# The option that sets each field, as a person typed it.
OPTIONS = {"contenders": "--contender", "workloads": "--workload", "client_drivers": "--client",
           "duration_s": "--duration", "warmup_s": "--warmup", "warmup_max_s": "--warmup-max",
           "timeout_ms": "--timeout (ms)",
           "cell_timeout_s": "--cell-timeout", "sample_limit": "--samples", "rate_per_s": "--rate",
           "rate_stages": "--rate (stages)",
           "interval_s": "--interval",
           "redis_url": "--redis", "fail_fast": "--fail-fast"}


def _option(name: str) -> str:
    return OPTIONS.get(name, "--" + name.replace("_", "-"))


def _shown(value: object) -> str:
    return "unset" if value is None else str(value).replace("'", "")


def check_host(host: str) -> None:
    """An address servers can bind here (a name must resolve to one)."""
    try:
        family = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
    except (OSError, UnicodeError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UsageError(f"bad --host {host!r} ({reason}): give an address of this machine to bind servers to, "
                         "e.g. 127.0.0.1 or ::1") from None


def check_redis_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        good = parts.scheme in REDIS_SCHEMES and (parts.port is None or parts.port > 0)
        good = good and (parts.scheme == "unix" or bool(parts.hostname))
    except ValueError:  # a port that is not a number below 65536, a broken IPv6 address
        good = False
    if not good:
        raise UsageError(f"bad --redis {url!r}: give a Redis URL such as redis://127.0.0.1:6379/0, or drop --redis "
                         "to have one started")
