"""The worker contract, typed: what crosses a process boundary between the orchestrator and a worker.

A worker (Python, Go, Rust, Java) is given a `DriveSpec` on stdin and answers with
a `DriveResult` line; a server announces itself with a `Ready` line. Each is a
frozen dataclass parsed once at the boundary: an unknown key, a missing required
key or a value of the wrong JSON type is a `ContractError` naming the key, never a
KeyError deep inside a driver. Every default is stated here and nowhere else.

`tools/gen_contract.py` writes the golden documents of `proto/contract/` from this
module; every native worker's tests parse those specs and check what they emit
against `fields.json`. See docs/worker-contract.md for the meaning of each key.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar, cast

from rpcarena.errors import WorkerError

VERSION = 1
ARRIVALS = ("constant", "poisson")
# The floor: the protocol that echoes bytes with no schema and no encoding, every mechanism's lower bound
FLOOR_PROTOCOL = "tcp-raw"
MODES = ("unary", "stream", "client_stream", "server_stream")
DEFAULT_SAMPLE_LIMIT = 10_000
DEFAULT_TIMEOUT_MS = 5000
DEFAULT_INTERVAL_S = 1.0

# JSON kinds a key may hold; "null" is added for optional values.
_KINDS: dict[str, tuple[type, ...]] = {
    "integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
    "object": (dict,), "array": (list,),
}


class ContractError(WorkerError):
    """A document that does not follow the worker contract."""


def kind(json_kind: str, nullable: bool = False) -> dict[str, Any]:
    """Field metadata: the JSON kind of a key, and whether null is allowed."""
    return {"json": json_kind, "nullable": nullable}


T = TypeVar("T", bound="Document")


class Document:
    """A frozen contract document: strict `from_json`, `to_json` without unset extensions."""

    WHAT: ClassVar[str] = "document"
    # keys written only when not None: extensions some workers never see
    OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_json(cls: type[T], data: object) -> T:
        if not isinstance(data, dict):
            raise ContractError(f"a {cls.WHAT} must be a JSON object, not {type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise ContractError(f"{cls.WHAT}: unknown key(s) {', '.join(unknown)} (contract {VERSION})")
        values = {}
        for name, f in fields.items():
            if name in data:
                values[name] = _checked(cls.WHAT, name, data[name], f.metadata)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ContractError(f"{cls.WHAT}: missing key {name!r}")
        document = cls(**values)
        document.validate()
        return document

    @classmethod
    def from_line(cls: type[T], line: str) -> T:
        try:
            return cls.from_json(json.loads(line))
        except ValueError as error:
            raise ContractError(f"a {cls.WHAT} line is not JSON ({error})") from None

    def validate(self) -> None:
        """Checks across keys; the types are checked already."""

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        for name in self.OMIT_WHEN_NONE:
            if out[name] is None:
                del out[name]
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def field_table(cls) -> dict[str, dict[str, Any]]:
        """Every key: its JSON kind, whether null is allowed, whether it is required."""
        table = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            table[f.name] = dict(f.metadata, required=required)
        return table


def _checked(what: str, name: str, value: Any, meta: Any) -> Any:
    if value is None and meta.get("nullable"):
        return None
    kinds = _KINDS[meta["json"]]
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        shown = "null" if value is None else type(value).__name__
        raise ContractError(f"{what}: key {name!r} must be {meta['json']}, not {shown}")
    return float(cast(float, value)) if meta["json"] == "number" else value  # 1 where 1.0 is due


class RunOptions(Protocol):
    """The run's options every driver of a cell is told: `config.RunConfig`'s, typed here because the
    contract sits below the config (a run option that reaches the drivers is read in `for_cell` only)."""

    @property
    def warmup_s(self) -> float: ...
    @property
    def warmup_max_s(self) -> float | None: ...
    @property
    def calls(self) -> int | None: ...
    @property
    def duration_s(self) -> float | None: ...
    @property
    def whole_timeout_ms(self) -> int: ...
    @property
    def sample_limit(self) -> int: ...
    @property
    def interval_s(self) -> float: ...
    @property
    def connections(self) -> int | None: ...
    @property
    def rate_per_s(self) -> float | None: ...
    @property
    def rate_stages(self) -> list[dict[str, float]] | None: ...
    @property
    def arrival(self) -> str: ...


@dataclass(frozen=True)
class DriveSpec(Document):
    """What a driver is asked to do: one cell's measured phase against one target."""

    WHAT: ClassVar[str] = "drive spec"
    OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("payloads_b64", "client", "external", "stages", "schema_b64",
                                                 "connections", "schedule_offset_ns", "warmup_max_s")

    contender: str = field(metadata=kind("string"))
    target: str = field(metadata=kind("string"))
    method: str = field(metadata=kind("string"))
    requests: list[Any] = field(default_factory=list, metadata=kind("array"))
    responses: list[Any] = field(default_factory=list, metadata=kind("array"))
    contract: int = field(default=VERSION, metadata=kind("integer"))
    clients: int = field(default=1, metadata=kind("integer"))
    warmup_s: float = field(default=0.0, metadata=kind("number"))
    calls: int | None = field(default=None, metadata=kind("integer", nullable=True))
    duration_s: float | None = field(default=None, metadata=kind("number", nullable=True))
    timeout_ms: int = field(default=DEFAULT_TIMEOUT_MS, metadata=kind("integer"))
    sample_limit: int = field(default=DEFAULT_SAMPLE_LIMIT, metadata=kind("integer"))
    rate_per_s: float | None = field(default=None, metadata=kind("number", nullable=True))
    arrival: str = field(default="constant", metadata=kind("string"))
    # open loop in stages (k6's ramping arrival rate): [{rate_per_s, duration_s}, ...] paced one after
    # the other from the phase's start; rate_per_s is then the first stage's and duration_s their sum
    stages: list[Any] | None = field(default=None, metadata=kind("array", nullable=True))
    mode: str = field(default="unary", metadata=kind("string"))
    sync: bool = field(default=False, metadata=kind("boolean"))
    # the length of each interval of the result's `intervals` (a time series of the measured phase)
    interval_s: float = field(default=DEFAULT_INTERVAL_S, metadata=kind("number"))
    # tcp-raw to native drivers: the protobuf encoding of each request, base64, instead of requests
    payloads_b64: list[Any] | None = field(default=None, metadata=kind("array", nullable=True))
    # Python drivers only: which Python client (py, py-requests, py-tuple)
    client: str | None = field(default=None, metadata=kind("string", nullable=True))
    # an external target (`rpcarena target`): its kind, schema and expected status, read by the
    # Python drivers and by a native target driver (target-go); requests are rendered, responses
    # are each request's [path, value] checks
    external: dict[str, Any] | None = field(default=None, metadata=kind("object", nullable=True))
    # a method of the user's schema (`rpcarena run --proto`, method "package.Service/Method"): the
    # compiled schema, a serialized FileDescriptorSet in base64, for the driver to build its messages
    schema_b64: str | None = field(default=None, metadata=kind("string", nullable=True))
    # the connections the `clients` share (1 <= connections <= clients); None: one connection each.
    # gRPC spreads calls over them round-robin, many in flight on each; where a protocol cannot
    # carry several calls at once on a connection (HTTP/1.1, Thrift) a call waits for a free one
    connections: int | None = field(default=None, metadata=kind("integer", nullable=True))
    # open loop, when a cell's clients are shared over several drivers (processes or nodes): this
    # driver's calls fall due this many ns after the phase's start and every interval after, so the
    # drivers' calls interleave into the cell's rate instead of falling due together in bursts
    schedule_offset_ns: int | None = field(default=None, metadata=kind("integer", nullable=True))
    # a driver whose code is compiled as it runs (a JIT: the JVM) warms up past warmup_s until its
    # compiler is quiet, and no longer than this (its manifest's max_warmup_s); its "warm" line says
    # how long it took. None: warmup_s it is. Drivers without a JIT read it and warm up for warmup_s.
    warmup_max_s: float | None = field(default=None, metadata=kind("number", nullable=True))

    @classmethod
    def for_cell(cls, run: RunOptions, *, contender: str, target: str, method: str, requests: Sequence[Any],
                 responses: Sequence[Any], clients: int, least_warmup_s: float = 0.0,
                 told_warmup_max: bool = False, own_warmup_max_s: float | None = None,
                 **only_some: Any) -> DriveSpec:
        """The one spec of a cell's drivers: what is called (`contender`, the driver's id in the results:
        a Python driver's subject, a native driver's manifest entry), the run's options, and what only
        some drivers are told (`only_some`: mode, client, sync, external, schema_b64, payloads_b64).

        A JIT (the JVM) is not warm after a short warm-up, on either side: `least_warmup_s` is the
        least its manifest says is honest. A driver `told_warmup_max` (a native contender's) may warm
        up past that while its compiler is busy, until --warmup-max or else `own_warmup_max_s` (its
        manifest's max_warmup_s), never less than its warm-up.
        """
        warmup_s = max(run.warmup_s, least_warmup_s)
        most = run.warmup_max_s if run.warmup_max_s is not None else own_warmup_max_s
        return cls(contender=contender, target=target, method=method, requests=list(requests),
                   responses=list(responses), clients=clients, warmup_s=warmup_s, calls=run.calls,
                   duration_s=run.duration_s, timeout_ms=run.whole_timeout_ms, sample_limit=run.sample_limit,
                   interval_s=run.interval_s, connections=run.connections, rate_per_s=run.rate_per_s,
                   stages=run.rate_stages, arrival=run.arrival,
                   warmup_max_s=max(float(most), warmup_s) if told_warmup_max and most is not None else None,
                   **only_some)

    @classmethod
    def for_probe(cls, *, contender: str, target: str, method: str, requests: Sequence[Any],
                  responses: Sequence[Any], timeout_ms: int, external: dict[str, Any]) -> DriveSpec:
        """One checked call before measuring (a target's native driver's first): no run options."""
        return cls(contender=contender, target=target, method=method, requests=list(requests),
                   responses=list(responses), calls=1, timeout_ms=timeout_ms, sample_limit=1, external=external)

    def validate(self) -> None:
        if self.contract != VERSION:
            raise ContractError(f"drive spec contract {self.contract}: this rpcarena speaks contract {VERSION}")
        if self.clients < 1:
            raise ContractError("drive spec: clients must be at least 1")
        if self.calls is None and self.duration_s is None:
            raise ContractError("drive spec: give calls or duration_s")
        if self.arrival not in ARRIVALS or self.mode not in MODES:
            raise ContractError(f"drive spec: arrival must be one of {ARRIVALS}, mode one of {MODES}")
        if not self.requests and not self.payloads_b64:
            raise ContractError("drive spec: give requests (or payloads_b64 for tcp-raw)")
        if not self.interval_s > 0:
            raise ContractError("drive spec: interval_s must be above 0")
        if self.connections is not None and not 1 <= self.connections <= self.clients:
            raise ContractError(f"drive spec: connections must be from 1 to clients ({self.clients})")
        if self.warmup_max_s is not None and not self.warmup_max_s >= self.warmup_s:
            raise ContractError("drive spec: warmup_max_s must be at least warmup_s")

    def but(self, **changes: Any) -> DriveSpec:
        return dataclasses.replace(self, **changes)

    @property
    def longest_warmup_s(self) -> float:
        """How long the warm-up may take: what an orchestrator waits for the "warm" line."""
        return self.warmup_s if self.warmup_max_s is None else self.warmup_max_s


@dataclass(frozen=True)
class DriveResult(Document):
    """What a driver measured: counts, its HdrHistograms, a bounded sample, its own CPU."""

    WHAT: ClassVar[str] = "drive result"
    OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("start_mono_ns", "end_mono_ns", "messages", "histogram_messages",
                                                 "histogram_schedule_lag", "stages", "intervals", "connections",
                                                 "inflight_max", "inflight_mean", "histogram_conn_wait")

    calls: int = field(metadata=kind("integer"))
    errors: dict[str, Any] = field(metadata=kind("object"))
    wall_s: float = field(metadata=kind("number"))
    cpu_user_s: float = field(metadata=kind("number"))
    cpu_sys_s: float = field(metadata=kind("number"))
    histogram: str = field(metadata=kind("string"))
    samples: list[Any] = field(metadata=kind("array"))
    tool: dict[str, Any] = field(metadata=kind("object"))
    contract: int = field(default=VERSION, metadata=kind("integer"))
    error_examples: dict[str, Any] = field(default_factory=dict, metadata=kind("object"))
    histogram_uncorrected: str | None = field(default=None, metadata=kind("string", nullable=True))
    # open loop: each call's schedule lag, from when it was due to when it was sent (HdrHistogram,
    # ns): the driver's own lateness, which `histogram` (due -> done) charges to the server
    histogram_schedule_lag: str | None = field(default=None, metadata=kind("string", nullable=True))
    late_calls: int = field(default=0, metadata=kind("integer"))
    retries: int = field(default=0, metadata=kind("integer"))  # calls a failing-over client re-sent
    start_mono_ns: int | None = field(default=None, metadata=kind("integer", nullable=True))
    end_mono_ns: int | None = field(default=None, metadata=kind("integer", nullable=True))
    # streams (a call is one stream): the reply messages, and each one's latency from the stream's
    # start or the message before it (HdrHistogram, ns), beside the streams' own in `histogram`
    messages: int | None = field(default=None, metadata=kind("integer", nullable=True))
    histogram_messages: str | None = field(default=None, metadata=kind("string", nullable=True))
    # open loop in stages: each stage's figures, in the spec's order: {calls, histogram,
    # histogram_uncorrected, histogram_schedule_lag}, a call counted in the stage it was due in
    stages: list[Any] | None = field(default=None, metadata=kind("array", nullable=True))
    # the measured phase interval by interval, in order: each {"start_s" (from the phase's start, a
    # multiple of the spec's interval_s), "calls", "errors" (by kind), "histogram"} of the calls
    # begun (open loop: due) in it; an interval without calls or errors may be left out
    intervals: list[Any] | None = field(default=None, metadata=kind("array", nullable=True))
    # the spec's `connections` set: the connections this driver opened, the calls in flight at once
    # over the measured phase (the mean sampled at each call's start, that call included), and each
    # call's wait for a free connection before it was sent (HdrHistogram, ns) where calls queue for
    # one (HTTP/1.1 pools, Thrift); no wait histogram where a connection multiplexes (gRPC)
    connections: int | None = field(default=None, metadata=kind("integer", nullable=True))
    inflight_max: int | None = field(default=None, metadata=kind("integer", nullable=True))
    inflight_mean: float | None = field(default=None, metadata=kind("number", nullable=True))
    histogram_conn_wait: str | None = field(default=None, metadata=kind("string", nullable=True))

    @property
    def error_counts(self) -> dict[str, int]:
        return {k: int(n) for k, n in self.errors.items() if n}


@dataclass(frozen=True)
class Ready(Document):
    """A server's one line once it accepts connections."""

    WHAT: ClassVar[str] = "ready line"
    OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("workers",)

    event: str = field(metadata=kind("string"))
    port: int = field(metadata=kind("integer"))
    pid: int = field(metadata=kind("integer"))
    contract: int = field(default=VERSION, metadata=kind("integer"))
    # a server of several processes (typed-json): its workers' pids, whose CPU counts as its own
    workers: list[Any] | None = field(default=None, metadata=kind("array", nullable=True))

    def validate(self) -> None:
        if self.event != "ready" or not 0 < self.port < 65536:
            raise ContractError(f"ready line: want event 'ready' and a port, got {self.event!r} {self.port}")


@dataclass(frozen=True)
class ManifestEntry(Document):
    """One contender of a native worker's manifest (`workers/<language>/worker.json`), parsed once
    where the manifest is read, so a misspelt key names itself instead of reading as its default."""

    WHAT: ClassVar[str] = "manifest entry"

    id: str = field(metadata=kind("string"))
    protocol: str = field(metadata=kind("string"))
    description: str = field(default="", metadata=kind("string"))
    server: bool = field(default=True, metadata=kind("boolean"))  # False: a load client only (rust-h1)
    client: bool = field(default=False, metadata=kind("boolean"))  # it drives servers of its protocol
    # the gRPC services it serves besides the arena's own (a seed's), for the protocols that have services
    services: list[Any] = field(default_factory=lambda: ["arena.Arena"], metadata=kind("array"))
    unsupported_methods: list[Any] = field(default_factory=list, metadata=kind("array"))
    why: str = field(default="not implemented", metadata=kind("string"))  # why those methods are not
    # what of a user's schema it cannot carry, kind -> why: "any" (no user method), "stream", or a kind
    # of `userschema.features.NAMES`
    user_lacks: dict[str, Any] = field(default_factory=dict, metadata=kind("object"))
    # what its client alone cannot carry besides, kind -> why (grpc-tonic's client reads the run's samples
    # with pbjson, which refuses an enum number its enum does not name; its server reads protobuf)
    client_lacks: dict[str, Any] = field(default_factory=dict, metadata=kind("object"))
    # the one-way streams of a user's schema it serves and calls, a stream a call: "client", "server"
    user_streams: list[Any] = field(default_factory=list, metadata=kind("array"))
    # tools only this entry needs to build (capnp-rust: capnp); without them the worker builds without it
    requires: list[Any] = field(default_factory=list, metadata=kind("array"))


# a synced driver's line when its warm-up is done (a JIT's also says "warmup_s": how long it took)
WARM = {"event": "warm"}
# a driver's line as one of its intervals closes (optional: the Python driver's), before its result:
# {"event": "interval", and the keys of an entry of the result's `intervals`}
INTERVAL_EVENT = "interval"
