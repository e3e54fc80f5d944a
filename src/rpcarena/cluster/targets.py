"""`rpcarena target --cluster`: an external target's clients spread over a cluster's nodes.

When one host's clients run out before the service does (k6 and Locust scale load generation
out for this), the target's clients are shared over the client nodes as a contender cell's are
(`phase.split`): each node runs its share with the target's own drivers (Python, or the native
target driver of `--client go`/`rust`, built on the node), warms up, and waits on the cell's
barrier; all are released at once and their results merged with `worker.merge`, each node's own
kept in the cell's `cluster` record. Nothing is started on a server node: the target runs where
its owner runs it, and every node must reach it (each measures its own round trip to it).
"""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

from rpcarena import clients, cluster_spec
from rpcarena.cluster import tasks
from rpcarena.cluster.cells import ClusterCells, NodeTasks, measured
from rpcarena.cluster.channel import OrchestratorSide
from rpcarena.cluster.engine import Engine
from rpcarena.cluster.reports import NodeReport, received
from rpcarena.cluster_spec import Node
from rpcarena.config import RunConfig
from rpcarena.contract import DriveSpec
from rpcarena.errors import ArenaError, ServerError, UsageError
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.phase import CONNECT_GRACE_S, split
from rpcarena.orchestration.plan import Plan, Skip
from rpcarena.target_runner import cells, native
from rpcarena.targets.target import ExternalServer, Target

# The first call's check on a node: at least this long (it also connects, and may do TLS), then
# the task's own start on the node.
PROBE_TIMEOUT_S, PROBE_GRACE_S = 10.0, 30.0


class ClusterTargetCells(ClusterCells):
    """The runner of every target's cells on a cluster (one for the run: one connection to it)."""

    def __init__(self) -> None:
        super().__init__()
        self.checked: dict[tuple[str, str], ArenaError | None] = {}  # (target, client): its first call's fault

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        return native.cannot(_target(plan), plan.client)

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        engine = self.engine
        if engine is None:
            raise UsageError("cluster cells without a cluster: give --cluster")
        drivers = cluster_spec.target_clients(engine.nodes(), context.config.client_nodes)
        self._check(engine, plan, drivers[0], context.config)
        return TargetCell(engine, plan, drivers, context, logs).measure()

    def _check(self, engine: Engine, plan: Plan, node: Node, config: RunConfig) -> None:
        """Before a target's first cell with a client: one checked call from a client node, as on one
        machine before measuring; a fault found fails each of its cells with the fault's reason."""
        target = _target(plan)
        key = (target.id, plan.client)
        if key not in self.checked:
            timeout_s = max(config.timeout_ms / 1000, PROBE_TIMEOUT_S)
            job = tasks.ProbeJob(f"check-{secrets.token_hex(4)}", node.name, dataclasses.replace(target), plan.client,
                                 timeout_s, config.max_error_rate or 0.0)
            try:
                engine.submit(tasks.probe_target, job, node).result(timeout=timeout_s + PROBE_GRACE_S)
                self.checked[key] = None
            except ArenaError as error:
                self.checked[key] = error
            except TimeoutError:
                self.checked[key] = ServerError(f"target {target.id}: the first call from node {node.name} did not "
                                                f"end in {timeout_s + PROBE_GRACE_S:g} s: check the target")
        fault = self.checked[key]
        if fault is not None:
            raise fault


def plans(targets: list[Target], config: RunConfig) -> list[Plan]:
    """The targets' cells, as on one machine, their clients on the cluster's nodes."""
    return cells.plans(targets, config, ClusterTargetCells())


def _target(plan: Plan) -> Target:
    if not isinstance(plan.subject, Target):
        raise UsageError(f"{plan.label}: not an external target")
    return plan.subject


class TargetCell(NodeTasks):
    """A target's cell: each client node's drivers warm, released at once, merged."""

    def __init__(self, engine: Engine, plan: Plan, drivers: tuple[Node, ...], context: RunContext,
                 logs: Path) -> None:
        super().__init__(engine, plan, context, logs)
        self.drivers, self.target = drivers, _target(plan)

    def _measure(self, channel: OrchestratorSide) -> Measurement:
        spec = self._spec()
        parts = split(spec, len(self.drivers))  # fewer parts than nodes when clients < nodes
        drivers = self.drivers[:len(parts)]
        clocks = {n.name: self.engine.clock_offset(n) for n in drivers}
        driving = [self._submit(tasks.drive, self._drive_job(n, part), n) for n, part in zip(drivers, parts)]
        channel.expect("warm", [n.name for n in drivers],
                       spec.longest_warmup_s + CONNECT_GRACE_S + self.config.cell_timeout_s, self._watch)
        server = ExternalServer(self.target)  # its CPU and memory when its pid is on this machine
        before, scheduler_before = server.usage(), self.engine.scheduler_cpu_s()
        channel.set("go")
        reports = [received(self._result(n, f, self.config.cell_timeout_s), NodeReport, n.name)
                   for n, f in zip(drivers, driving)]
        after, scheduler_after = server.usage(), self.engine.scheduler_cpu_s()
        scheduler = None if scheduler_before is None or scheduler_after is None else scheduler_after - scheduler_before
        figures = ServerFigures(after - before, peak_rss_bytes=server.peak_rss_bytes())
        done = measured(spec.warmup_s, reports, figures, clocks, drivers, scheduler, self.engine.address)
        return dataclasses.replace(done, placement=dict(
            done.placement, server=f"external at {self.target.address}, not pinned by rpcarena"))

    def _spec(self) -> DriveSpec:
        """The whole cell's spec, as one machine's drivers would get it (shared out by `split`)."""
        if clients.is_python(self.plan.client):
            return cells.drive_spec(self.target, self.plan, self.config)
        return native.drive_spec(self.target, self.plan, self.config)

    def _drive_job(self, node: Node, part: DriveSpec) -> tasks.DriveJob:
        return tasks.DriveJob(self.engine.run_id, self.id, node.name, part.to_json(), self.plan.client,
                              native.PROTOCOL, self.target.host, self.target.port, self.config.pin, str(self.logs),
                              self.config.cell_timeout_s)
