"""Cells across the nodes of a Dask cluster: the server on one node, the drivers on others.

The runner of a run's plans when `--cluster` is given. One cell:

    serve task on the server's node   -> "ready" (its port, on the node's own address)
    drive task on each client node    -> the TCP round trip to the server, then "warm"
    (all warm) scheduler CPU read      -> "mark": the server's node reads CPU and wire counters
    "marked" -> "go": every node releases its drivers at once; each returns its DriveResult
    "stop" -> the server's node reads its counters again and stops the server

The nodes' results are merged as local drivers' are (`worker.merge`: HdrHistograms added, counts
summed), with each node's times first moved onto this machine's clock; each node's own result
stays in the measurement (the stored cell's `cluster["nodes"]`). A task that fails, a node that leaves, or a word
that does not come in time fails the cell with the reason, and every task of the cell is let go.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rpcarena import cluster_spec
from rpcarena import contenders as registry
from rpcarena.cluster import tasks
from rpcarena.cluster.channel import OrchestratorSide
from rpcarena.cluster.engine import Engine
from rpcarena.cluster.reports import NodeReport, ServeReport, received
from rpcarena.cluster_spec import Node, Roles, assign
from rpcarena.config import RunConfig
from rpcarena.contenders.base import Contender
from rpcarena.contract import DriveResult
from rpcarena.errors import ArenaError, HelperLost, UnavailableError, UsageError, WorkerError
from rpcarena.orchestration import contender_cells, log_folder
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.phase import CONNECT_GRACE_S, split
from rpcarena.orchestration.plan import CellRunner, Plan, Skip
from rpcarena.worker.merge import merge

STOP_GRACE_S = 30.0  # how long the server's node may take to read its counters and stop
NODE_RETURN_S = 60.0  # how long a cell waits for a lost node to come back before it fails
NODE_GONE_GRACE_S = 2.0  # how long a failed task waits for the scheduler to say whether a node left


class ClusterCells(CellRunner):
    """The runner of contender cells on a cluster's nodes; it opens the run's connection to them."""

    def __init__(self) -> None:
        self.engine: Engine | None = None

    @contextlib.contextmanager
    def opened(self, context: RunContext) -> Iterator[dict[str, Any] | None]:
        """The run's connection to its cluster (and the cluster, when rpcarena starts it); the one
        held already when a search's arenas share it (`held`)."""
        if self.engine is not None:
            yield self.engine.describe()
            return
        with self.held(context.config, context.logs):
            yield self.engine.describe() if self.engine else None

    @contextlib.contextmanager
    def held(self, config: RunConfig, logs: Path) -> Iterator[None]:
        """The connection open over several arenas: a --find-max search's capacity run and probes
        are arenas of their own, and a netns testbed takes seconds to build."""
        if config.cluster is None:
            raise UsageError("cluster cells without a cluster: give --cluster")
        with Engine(cluster_spec.parse(config.cluster), logs.resolve() / "cluster") as self.engine:
            try:
                yield
            finally:
                self.engine = None


    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        contender = registry.get(plan.subject.id)
        reason = contender.unsupported(plan.workload.method)
        if reason:
            return "unsupported", reason
        if any(not need.document for need in plan.workload.needs) and not context.config.redis_url:
            return "unavailable", ("a backing service on a cluster: give --redis URL, a Redis the server's node "
                                   "reaches (rpcarena starts one only on this machine)")
        # whether a node can build and run the client is asked of the node itself
        return contender_cells.client_cannot(plan, contender, here=False)

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        engine = self.engine
        if engine is None:
            raise UsageError("cluster cells without a cluster: give --cluster")
        return ClusterCell(engine, plan, _roles(engine, context), context, logs).measure()


@contextlib.contextmanager
def held(todo: list[Plan], config: RunConfig) -> Iterator[None]:
    """Each cluster runner of `todo` connected once for all the arenas run inside (nothing for
    cells measured here)."""
    runners = {id(p.runner): p.runner for p in todo if isinstance(p.runner, ClusterCells)}
    if not runners:
        yield
        return
    with contextlib.ExitStack() as stack:
        for runner in runners.values():
            stack.enter_context(runner.held(config, _logs(config)))
        yield


@contextlib.contextmanager
def shared(config: RunConfig) -> Iterator[ClusterCells]:
    """One runner connected once for several runs (a suite's parts: one testbed, not one each)."""
    runner = ClusterCells()
    with runner.held(config, _logs(config)):
        yield runner


def _logs(config: RunConfig) -> Path:
    """The cluster's own log folder when it outlives one run (beside the runs' folders)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    return log_folder.make(Path(config.out), f"{stamp}-cluster")

def plans(config: RunConfig) -> list[Plan]:
    """A configuration's contender cells, their servers and drivers on the cluster's nodes (one
    runner for the run, which holds its connection to the cluster)."""
    return contender_cells.plans(config, ClusterCells())


def _roles(engine: Engine, context: RunContext) -> Roles:
    """Which node serves and which drive, asked anew for each cell: a node that was lost and came
    back (a nanny restarts its worker at a new address) is used again, once it is back."""
    deadline = time.monotonic() + NODE_RETURN_S
    while True:
        nodes = engine.nodes()
        try:
            return assign(nodes, context.config.server_node, context.config.client_nodes)
        except UsageError:
            if len(nodes) >= len(engine.facts) or time.monotonic() > deadline:
                raise
        time.sleep(1.0)


class NodeTasks:
    """One cell's tasks on the nodes: submitted, watched, and let go of however the cell ends
    (a subclass's `_measure` is the cell's own sequence of words)."""

    def __init__(self, engine: Engine, plan: Plan, context: RunContext, logs: Path) -> None:
        self.engine, self.plan, self.context = engine, plan, context
        self.logs = logs.resolve()
        self.id = f"rpcarena-{engine.run_id}-{uuid.uuid4().hex[:8]}"
        self.config = context.config
        self.futures: list[tuple[Node, Any]] = []

    def measure(self) -> Measurement:
        channel = OrchestratorSide(self.engine.client, self.engine.queue, self.id)
        try:
            return self._measure(channel)
        finally:
            self._let_go(channel)

    def _measure(self, channel: OrchestratorSide) -> Measurement:
        raise NotImplementedError

    def _submit(self, function: Any, job: Any, node: Node) -> Any:
        future = self.engine.submit(function, job, node)
        self.futures.append((node, future))
        return future

    def _watch(self) -> None:
        """Raise when a task of the cell failed, one of its nodes left the cluster, or the link
        between them died. A node that left is the cause to name: a task on another node that failed
        meanwhile (a driver that found its server gone) is its symptom, so a failed task gives the
        scheduler NODE_GONE_GRACE_S to say whether a node left first."""
        lost = self.engine.lost()
        if lost:
            raise HelperLost(lost)
        failed = [(node, future) for node, future in self.futures if future.status in ("error", "cancelled")]
        self._all_present(NODE_GONE_GRACE_S if failed else 0.0)
        for node, future in failed:
            if future.status == "error":
                raise _translated(node, future.exception())
            raise WorkerError(f"node {node.name}: its task was cancelled (its worker restarted?)")

    def _all_present(self, grace_s: float) -> None:
        wanted = frozenset(node.address for node, _ in self.futures)
        deadline = time.monotonic() + grace_s
        while True:
            present = self.engine.present(wanted, fresh=grace_s > 0)
            for node, _ in self.futures:
                if node.address not in present:
                    raise WorkerError(f"node {node.name} ({node.address}) left the cluster mid-cell")
            if time.monotonic() >= deadline:
                return
            time.sleep(0.1)

    def _result(self, node: Node, future: Any, timeout_s: float) -> object:
        deadline = time.monotonic() + timeout_s
        while future.status == "pending":
            self._watch()
            if time.monotonic() > deadline:
                raise WorkerError(f"node {node.name}: no result within {timeout_s:.0f} s; raise --cell-timeout")
            time.sleep(0.2)
        self._watch()
        result: object = future.result()
        return result

    def _let_go(self, channel: OrchestratorSide) -> None:
        """Stop everything of the cell on every node, however the cell ended."""
        try:
            channel.set("stop")
        except (OSError, TimeoutError, RuntimeError):
            pass  # the scheduler is gone; its tasks see their cancellation
        self.engine.cancel([f for _, f in self.futures if f.status == "pending"])
        channel.close()



class ClusterCell(NodeTasks):
    """A contender's cell on the nodes, from the server's start to the last report."""

    def __init__(self, engine: Engine, plan: Plan, roles: Roles, context: RunContext, logs: Path) -> None:
        super().__init__(engine, plan, context, logs)
        self.roles = roles

    def _measure(self, channel: OrchestratorSide) -> Measurement:
        server = self.roles.server
        serving = self._submit(tasks.serve, self._serve_job(), server)
        ready = channel.expect("ready", [server.name], self.config.cell_timeout_s, self._watch)[server.name]
        contender = registry.get(self.plan.subject.id)
        spec = contender_cells.drive_spec(self.plan, contender, self.config, f"{ready['host']}:{ready['port']}",
                                          contender_cells.native_client(self.plan, contender))
        parts = split(spec, len(self.roles.clients))  # fewer parts than nodes when clients < nodes
        drivers = list(self.roles.clients[:len(parts)])
        clocks = {n.name: self.engine.clock_offset(n) for n in drivers}
        driving = [self._submit(tasks.drive, self._drive_job(n, part.to_json(), contender, ready), n)
                   for n, part in zip(drivers, parts)]
        channel.expect("warm", [n.name for n in drivers],
                       spec.longest_warmup_s + CONNECT_GRACE_S + self.config.cell_timeout_s, self._watch)
        scheduler_before = self.engine.scheduler_cpu_s()
        channel.set("mark")
        channel.expect("marked", [server.name], STOP_GRACE_S, self._watch)
        channel.set("go")
        reports = [received(self._result(n, f, self.config.cell_timeout_s), NodeReport, n.name)
                   for n, f in zip(drivers, driving)]
        scheduler_after = self.engine.scheduler_cpu_s()
        channel.set("stop")
        served = received(self._result(server, serving, STOP_GRACE_S), ServeReport, server.name)
        scheduler = None if scheduler_before is None or scheduler_after is None else scheduler_after - scheduler_before
        return measured(spec.warmup_s, reports, served, clocks, self.roles, scheduler, self.engine.address)

    def _serve_job(self) -> tasks.ServeJob:
        server = self.roles.server
        return tasks.ServeJob(self.engine.run_id, self.id, server.name, self.plan.subject.id, server.host,
                              self.config.port, self.config.pin, dict(self.context.backing.urls), str(self.logs),
                              self.config.cell_timeout_s + STOP_GRACE_S, self._documents())

    def _documents(self) -> dict[str, str]:
        """The run's own files the server reads (the user's schema), by service name, as text: the
        server's node may be another machine, where the path given here means nothing."""
        backing = self.context.backing
        return {name: Path(url).read_text() for name, url in backing.urls.items()
                if name in backing.needs and backing.needs[name].document}

    def _drive_job(self, node: Node, spec: dict[str, Any], contender: Contender,
                   ready: dict[str, Any]) -> tasks.DriveJob:
        return tasks.DriveJob(self.engine.run_id, self.id, node.name, spec, self.plan.client, contender.protocol,
                              str(ready["host"]), int(ready["port"]), self.config.pin, str(self.logs),
                              self.config.cell_timeout_s)


def _translated(node: Node, error: BaseException | None) -> ArenaError:
    """A task's failure as the cell's reason, with the node named."""
    named = f"node {node.name}" in str(error)  # a task's own message may name its node already
    if isinstance(error, UnavailableError):
        return UnavailableError(str(error) if named else f"on node {node.name}: {error}")
    if isinstance(error, ArenaError):
        return WorkerError(str(error) if named else f"on node {node.name}: {error}")
    return WorkerError(f"on node {node.name}: {type(error).__name__}: {error}")


def measured(warmup_s: float, reports: list[NodeReport], served: ServeReport | ServerFigures,
             clocks: dict[str, tuple[int, int]], roles: Roles | tuple[Node, ...], scheduler_cpu_s: float | None,
             scheduler: str) -> Measurement:
    """The cell's measurement from the nodes' reports: merged results, and each node's own. The
    server is a node's (`ServeReport`, with `Roles`), or one rpcarena did not start (an external
    target's `ServerFigures`, with the client nodes alone)."""
    here = time.time_ns() - time.monotonic_ns()
    results = {r.node: _on_our_clock(r, clocks[r.node][0] + here) for r in reports}
    releases = {r.node: r.release_mono_ns - clocks[r.node][0] + (r.mono_to_wall_ns - here) for r in reports}
    warm_in_counters = any(r.counters_include_warmup for r in reports)
    warmup_s = max([warmup_s, *(r.warmup_s for r in reports if r.warmup_s is not None)])
    if isinstance(served, ServeReport):
        server = ServerFigures(served.usage, served.wire, served.peak_rss_bytes, warm_in_counters)
    else:
        server = dataclasses.replace(served, counters_include_warmup=warm_in_counters)
    where = roles if isinstance(roles, Roles) else None
    clients = roles.clients if isinstance(roles, Roles) else roles
    served_here = (served, where.server) if isinstance(served, ServeReport) and where else None
    return Measurement(
        merge(list(results.values())), sum(r.processes for r in reports), server, warmup_s=warmup_s,
        tcp_nodelay=_nodelay(reports, served if isinstance(served, ServeReport) else None),
        placement={"server_node": where.server.name if where else None,
                   "server_cpus": served.cpus if isinstance(served, ServeReport) else None,
                   "client_nodes": {r.node: r.cpus for r in reports}},
        nodes=_cluster_record(results, reports, served_here, clocks, releases, clients, scheduler_cpu_s,
                              scheduler))


def _nodelay(reports: list[NodeReport], served: ServeReport | None) -> dict[str, Any]:
    """TCP_NODELAY at each end as each node read it: the clients' agreed value ("mixed" when
    nodes differ, None when none could be read), the server's, and each client node's."""
    read = {r.tcp_nodelay for r in reports if r.tcp_nodelay is not None}
    client = None if not read else (read.pop() if len(read) == 1 else "mixed")
    return {"client": client, "server": served.tcp_nodelay if served else None,
            "client_nodes": {r.node: r.tcp_nodelay for r in reports}}


def _on_our_clock(report: NodeReport, shift_ns: int) -> DriveResult:
    """A node's result with its measured phase's start and end on this machine's monotonic clock."""
    result = report.result
    shift = report.mono_to_wall_ns - shift_ns  # node monotonic -> node wall -> our wall -> our monotonic
    if result.start_mono_ns is None or result.end_mono_ns is None:
        return result
    return dataclasses.replace(result, start_mono_ns=result.start_mono_ns + shift,
                               end_mono_ns=result.end_mono_ns + shift)


def _spread_us(values: list[int]) -> float | None:
    return (max(values) - min(values)) / 1e3 if len(values) > 1 else (0.0 if values else None)


def _cluster_record(results: dict[str, DriveResult], reports: list[NodeReport],
                    served: tuple[ServeReport, Node] | None, clocks: dict[str, tuple[int, int]],
                    releases: dict[str, int], clients: tuple[Node, ...], scheduler_cpu_s: float | None,
                    scheduler: str) -> dict[str, Any]:
    first = min(releases.values())
    starts = [r.start_mono_ns for r in results.values() if r.start_mono_ns is not None]
    nodes: dict[str, Any] = {}
    if served is not None:
        serve, node = served
        nodes[node.name] = {"role": "server", "address": node.address, "engine_cpu_s": serve.engine_cpu_s,
                            "engine_window_s": serve.engine_window_s, "cpus": serve.cpus,
                            "wire_unavailable": serve.wire_unavailable}
    for report in reports:
        name, result = report.node, results[report.node]
        nodes[name] = dict(nodes.get(name, {}), role="client" if name not in nodes else "server+client",
                           address=next(n.address for n in clients if n.name == name),
                           calls=result.calls, errors=result.error_counts, wall_s=result.wall_s,
                           histogram=result.histogram, processes=report.processes,
                           cpu_user_s=result.cpu_user_s, cpu_sys_s=result.cpu_sys_s, rtt_ms=report.rtt_ms,
                           clock_offset_ns=clocks[name][0], clock_uncertainty_ns=clocks[name][1],
                           release_after_first_us=(releases[name] - first) / 1e3,
                           engine_cpu_s=report.engine_cpu_s, engine_window_s=report.engine_window_s,
                           cpus=report.cpus)
    return {"scheduler": scheduler, "server_node": served[1].name if served else None,
            "client_nodes": [r.node for r in reports],
            "release_skew_us": _spread_us(list(releases.values())),
            "start_skew_us": _spread_us(starts) if len(starts) == len(results) else None,
            "clock_uncertainty_us": 2 * max(u for _, u in clocks.values()) / 1e3 if clocks else None,
            "scheduler_cpu_s": scheduler_cpu_s, "nodes": nodes}
