"""What runs on a node: the same `serve` and `drive` processes as on one machine, as Dask tasks.

`serve` starts the contender's server with the orchestrator's own `ServerProcess` (pinned by
`--pin` on its node, built there when it is native), says `ready`, reads the server's CPU time
and the kernel's byte counters on its node when told `mark` and again at `stop`, and returns
them with the server's peak RSS and the engine's own CPU on the node. `drive` runs the cell's
driver processes with the orchestrator's own `Phase` (the same argv and DriveSpec as on one
machine), says `warm` when they all are, waits on the barrier (`go`), and returns the node's
merged DriveResult with when it released its drivers, by its own clock. A node that cannot
run a contender or a client (a toolchain missing, a build failing) raises UnavailableError
with the node's name, so the cell is unavailable with the reason, never a hang.

Each child process is started in its own process group, dies with the worker thread that
started it (PDEATHSIG), and is stopped when its task ends, however it ends.
"""

from __future__ import annotations

import contextlib
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from rpcarena import clients, contract, environment
from rpcarena import contenders as registry
from rpcarena.cluster.channel import NodeSide
from rpcarena.cluster.reports import NodeReport, ServeReport
from rpcarena.contenders import native
from rpcarena.contract import DriveSpec
from rpcarena.errors import ServerError, ThresholdFailed, UnavailableError, UsageError
from rpcarena.network import nodelay, wire
from rpcarena.orchestration.phase import DriverSpec, Phase, python_drivers
from rpcarena.process import builds, leftovers, placement
from rpcarena.process.server_process import ServerProcess
from rpcarena.protocol.schema import cache_dir
from rpcarena.target_runner import native as targets
from rpcarena.userschema import workload as userschema
from rpcarena.userschema.workload import NEED

RTT_PROBES = 5


@dataclass(frozen=True)
class ServeJob:
    """One cell's server on its node."""

    run: str
    cell: str
    node: str
    contender: str
    host: str  # the address it binds: the node's own, as its worker is reached
    port: int
    pin: str
    services: dict[str, str]
    logs: str
    timeout_s: float
    documents: dict[str, str] = field(default_factory=dict)  # service name -> a file's text (the user's schema)


@dataclass(frozen=True)
class DriveJob:
    """One node's share of a cell's drivers."""

    run: str
    cell: str
    node: str
    spec: dict[str, Any]  # the DriveSpec of this node's share, as JSON
    client: str
    protocol: str
    server_host: str
    server_port: int
    pin: str
    logs: str
    timeout_s: float


@dataclass(frozen=True)
class ProbeJob:
    """Before a target's first cell on a cluster: one checked call from a client node."""

    cell: str  # names the task (Engine.submit's key), as a cell's do
    node: str
    target: Any  # a targets.target.Target (its fields only: built again by dataclasses.replace)
    client: str
    timeout_s: float
    max_error_rate: float


def probe_target(job: ProbeJob) -> None:
    """One call by the cell's client, from this node (which reaches the target where the
    orchestrator may not), checked as on one machine (`target_runner.native.probe_by`); a wrong answer,
    a wrong method or a server down is raised, with the node's name."""
    try:
        targets.probe_by(job.target, job.client, job.timeout_s, job.max_error_rate)
    except (UsageError, ServerError, UnavailableError, ThresholdFailed) as error:
        raise type(error)(f"{error} (checked from node {job.node})") from None


def serve(job: ServeJob) -> ServeReport:
    """Run the cell's server on this node until the orchestrator says stop; report its costs."""
    channel = NodeSide(job.run, job.cell, job.node)
    contender = registry.get(job.contender)
    reason = contender.unavailable()
    if reason:
        raise UnavailableError(f"{job.contender} cannot serve on node {job.node}: {reason}")
    logs = log_dir(job.logs, job.node)
    cpus = placement.plan(job.pin).server
    with _documents(job) as services, ServerProcess(contender, job.host, cpus, logs / "server.log",
                                                    services=services) as server:
        server.start(job.port)
        channel.say("ready", port=server.port, host=job.host)
        return _serve_cell(channel, server, job)


@contextlib.contextmanager
def _documents(job: ServeJob) -> Iterator[dict[str, str]]:
    """The server's services with each of the run's own files (`job.documents`) written on this
    node, in a folder removed when the server is done; the user's schema also held by this
    process, which picks a native server's variant by it."""
    if not job.documents:
        yield job.services
        return
    with tempfile.TemporaryDirectory(prefix=leftovers.name("folder", "node", "")) as folder:
        services = dict(job.services)
        for name, text in job.documents.items():
            path = Path(folder) / f"{name}.json"
            path.write_text(text)
            services[name] = str(path)
        if NEED in job.documents:
            userschema.adopt(job.documents[NEED])
        yield services


def _serve_cell(channel: NodeSide, server: ServerProcess, job: ServeJob) -> ServeReport:
    def check() -> None:
        if not server.alive():
            raise ServerError(f"on node {job.node}: {server.died_message()}")
    why_not = wire.unavailable()
    with contextlib.nullcontext(None) if why_not else ArrivalCounter(server.port) as counter:
        channel.wait("mark", job.timeout_s, check)
        start = (server.usage(), counter.read() if counter else None, engine_cpu_s(), time.monotonic())
        nodelay_now = nodelay.state([server.pid], server.port, local=True) if server.pid and server.port else None
        channel.say("marked")
        channel.wait("stop", job.timeout_s, check)
        end = (server.usage(), counter.read() if counter else None, engine_cpu_s(), time.monotonic())
    return ServeReport(job.node, end[0] - start[0], end[1] - start[1] if end[1] and start[1] else None, why_not,
                       server.peak_rss_bytes(), end[2] - start[2], end[3] - start[3],
                       placement.where(server.pid) if server.pid else None, nodelay_now)


class ArrivalCounter(wire.Counter):
    """Byte counters on a server port whose clients are on other hosts: requests arrive on the
    input hook, replies leave on the output hook (on loopback both pass the output hook)."""

    def __init__(self, port: int) -> None:
        super().__init__(port, None)
        self.rules = (("requests", "input", "dport"), ("replies", "output", "sport"))


def drive(job: DriveJob) -> NodeReport:
    """Run this node's drivers: warm, wait on the barrier, measure; report the node's result."""
    channel = NodeSide(job.run, job.cell, job.node)
    drivers = _drivers(job, DriveSpec.from_json(job.spec))
    rtt_ms = connect_rtt_ms(job.server_host, job.server_port)
    marks: dict[str, Any] = {}

    def on_warm() -> None:
        # TCP_NODELAY of this node's sockets to the server: read here, where the drivers run
        marks["tcp_nodelay"] = nodelay.state([c.pid for c in phase.children], job.server_port, local=False)
        channel.say("warm", rtt_ms=rtt_ms)
        channel.wait("go", job.timeout_s)
        marks["release_mono_ns"], marks["engine_cpu_s"] = time.monotonic_ns(), engine_cpu_s()
        marks["released"] = time.monotonic()

    cpus = placement.plan(job.pin).clients
    phase = Phase(drivers, cpus, log_dir(job.logs, job.node), channel.wanted,
                  lambda: f"cell let go on node {job.node}")
    outcome = phase.run(on_warm, job.timeout_s)
    return NodeReport(job.node, outcome.result, outcome.processes, outcome.counters_include_warmup,
                      marks["release_mono_ns"], time.time_ns() - time.monotonic_ns(),
                      engine_cpu_s() - marks["engine_cpu_s"], time.monotonic() - marks["released"], rtt_ms,
                      list(cpus) if cpus else None, marks.get("tcp_nodelay"), outcome.warmup_s)


def _drivers(job: DriveJob, spec: DriveSpec) -> list[DriverSpec]:
    """This node's driver processes: its own Python, or the native client built here."""
    if clients.is_python(job.client):
        return python_drivers(spec)
    if job.protocol == targets.PROTOCOL:  # an external target's native driver (target --cluster)
        try:
            return [DriverSpec(targets.driver_argv(job.client), spec)]
        except UnavailableError as error:
            raise UnavailableError(f"on node {job.node}: {error}") from None
    client = native.client(job.client, job.protocol)
    if client is None:
        raise UsageError(f"no client {job.client!r} speaks {job.protocol}")
    reason = client.unavailable()
    if reason:
        raise UnavailableError(f"the {job.client} client cannot drive on node {job.node}: {reason}")
    try:
        argv = client.driver_argv(spec.schema_b64)
    except UnavailableError as error:
        raise UnavailableError(f"on node {job.node}: {error}") from None
    return [DriverSpec(argv, spec)]


def connect_rtt_ms(host: str, port: int, count: int = RTT_PROBES) -> float | None:
    """The round trip from this node to the server now: the median time of a TCP connect (SYN,
    SYN-ACK), over the very path the drivers take; None when it cannot connect."""
    times = []
    for _ in range(count):
        start = time.perf_counter_ns()
        try:
            with socket.create_connection((host, port), timeout=5):
                times.append(time.perf_counter_ns() - start)
        except OSError:
            return None
    return statistics.median(times) / 1e6


def engine_cpu_s() -> float:
    """CPU time of this Dask worker process, and of its nanny when it has one."""
    from distributed import get_worker

    total = time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)  # to the nanosecond, not the 10 ms tick
    parent = psutil.Process().parent()
    if get_worker().nanny and parent is not None:
        with contextlib.suppress(psutil.Error):
            total += parent.cpu_times().user + parent.cpu_times().system
    return float(total)


def log_dir(wanted: str, node: str) -> Path:
    """The node's logs of a cell: beside the orchestrator's when the path can be made here (one
    machine, a shared file system), else in the node's cache."""
    for root in (Path(wanted), cache_dir() / "cluster-logs" / Path(wanted).name):
        folder = root / f"node-{node}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return folder
        except OSError:
            continue
    raise UnavailableError(f"node {node} cannot make a log folder at {wanted} nor in {cache_dir()}")


def clock_source() -> str | None:
    try:
        return Path("/sys/devices/system/clocksource/clocksource0/current_clocksource").read_text().strip()
    except OSError:
        return None


def boot_id() -> str | None:
    """This kernel's boot id: nodes that share it share one monotonic and one wall clock."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def node_facts(dask_worker: Any) -> dict[str, Any]:
    """This node as the results record it: the machine, the software, the clock, the worker."""
    import distributed

    return dict(environment.snapshot(), clock_source=clock_source(), boot_id=boot_id(),
                python_executable=sys.executable, distributed=getattr(distributed, "__version__", "?"),
                contract=contract.VERSION,
                toolchains={w.language: w.unavailable() or "ok" for w in builds.workers().values()},
                worker={"address": dask_worker.address, "name": str(dask_worker.name),
                        "nthreads": dask_worker.state.nthreads, "resources": dict(dask_worker.state.total_resources),
                        "nanny": dask_worker.nanny is not None})


def now_ns() -> int:
    """This node's wall clock, for the orchestrator's estimate of the clock offset."""
    return time.time_ns()


def process_cpu_s() -> float:
    """CPU time of the process this runs in (the scheduler, with run_on_scheduler)."""
    return time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)


# What `quiet_worker` and `quiet_scheduler` change: the engine stays out of the numbers.
TICK_MS = 1000.0  # the event loop health check, every 20 ms by default
MONITOR_MS = 5000.0  # the system monitor (psutil), every 500 ms by default


def quiet_worker(dask_worker: Any) -> dict[str, Any]:
    """Turn off the statistical profiler (every 10 ms) and slow the worker's housekeeping
    (its heartbeat: `heartbeat.SlowHeartbeat`, a plugin for the run)."""
    return _quiet(dask_worker, ("profile", "profile-cycle"))


def quiet_scheduler(dask_scheduler: Any) -> dict[str, Any]:
    """Slow the scheduler's own housekeeping (its timers, for as long as it runs; nothing of
    Dask's code is replaced)."""
    return _quiet(dask_scheduler, ())


def _quiet(server: Any, stop: tuple[str, ...]) -> dict[str, Any]:
    callbacks = server.periodic_callbacks
    stopped = [name for name in stop if name in callbacks]
    for name in stopped:
        callbacks[name].stop()
    for name, ms in (("tick", TICK_MS), ("monitor", MONITOR_MS)):
        if name in callbacks:
            callbacks[name].callback_time = max(callbacks[name].callback_time, ms)
    return {"stopped": stopped, "tick_ms": TICK_MS, "monitor_ms": MONITOR_MS,
            "profiler": "off" if "profile" not in callbacks or "profile" in stopped else "on"}
