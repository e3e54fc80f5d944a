"""The arena: every cell of a run, each against a fresh server, saved as it goes.

A cell is (contender, client, workload, concurrency, trial). For each one a new
server process is started and pinned, the drivers warm up and start together,
the server's CPU and bytes are read at both ends of the measured phase, and the
cell is appended to the results document, which is saved after every cell.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rpcarena import contenders as registry
from rpcarena import drivers, environment, native, netlink, procs, proxy, wire, workloads
from rpcarena.backing import Backing
from rpcarena.config import RunConfig
from rpcarena.contenders.base import Contender
from rpcarena.errors import ArenaError, Interrupted, UnavailableError, UsageError
from rpcarena.external.target import Target
from rpcarena.placement import Placement, plan, where
from rpcarena.results import Cell, Results
from rpcarena.server import Server
from rpcarena.workloads import Workload


@dataclass(frozen=True)
class Plan:
    """One cell to measure: against a contender's fresh server, or an external target."""

    contender: Contender | Target
    client: str
    workload: Workload
    clients: int
    trial: int

    @property
    def label(self) -> str:
        return f"{self.contender.id}<-{self.client} {self.workload.id} x{self.clients}"


def client_ids(contender: Contender, wanted: list[str] | None) -> list[str]:
    """The clients that drive a contender: those asked for that speak its protocol, or its own.

    In a matrix (several contenders, several clients) a pair that cannot be made is
    left out; a contender that no requested client can drive is an error.
    """
    if not wanted:
        return [contender.default_client()]
    known = registry.python_client_ids(contender.protocol) + native.client_ids(contender.protocol)
    usable = [c for c in wanted if c in known]
    if not usable:
        raise UsageError(f"no client {wanted[0]!r} speaks {contender.protocol} (for {contender.id}); "
                         f"use one of: {', '.join(known)}")
    return usable


def plans(config: RunConfig) -> list[Plan]:
    chosen = [registry.get(c) for c in config.contenders]
    loads = workloads.select(config.workloads)
    out = []
    for contender in chosen:
        for client, workload, clients, trial in itertools.product(
                client_ids(contender, config.client_drivers), loads, config.clients, range(config.repeat)):
            out.append(Plan(contender, client, workload, clients, trial))
    return out


def skipped(p: Plan) -> tuple[str, str] | None:
    """(status, reason) when a cell cannot run here."""
    reason = p.contender.unavailable()
    if reason:
        return "unavailable", reason
    reason = p.contender.unsupported(p.workload.method)
    if reason:
        return "unsupported", reason
    return _client_cannot(p)


def _client_cannot(p: Plan) -> tuple[str, str] | None:
    """Why the plan's client cannot make this call (a stream its protocol's client lacks)."""
    streaming = p.workload.mode == "stream"
    if p.client.startswith("py"):
        if streaming and p.client not in registry.python_client_ids(p.contender.protocol, streaming=True):
            return "unsupported", f"no Python stream client for {p.contender.protocol}"
        return None
    client = native.client(p.client, p.contender.protocol)
    if client is None:
        return "unsupported", f"no client {p.client!r} speaks {p.contender.protocol}"
    if reason := client.unavailable():
        return "unavailable", f"the {p.client} client: {reason}"
    reason = client.unsupported(p.workload.method)
    return ("unsupported", f"the {p.client} client: {reason}") if reason else None


def driver_specs(p: Plan, config: RunConfig, target: str) -> list[drivers.DriverSpec]:
    spec = {
        "contract": 1, "contender": p.contender.id, "target": target, "method": p.workload.method,
        "requests": p.workload.requests, "responses": p.workload.responses, "clients": p.clients,
        "warmup_s": config.warmup_s, "calls": config.calls, "duration_s": config.duration_s,
        "timeout_ms": config.timeout_ms, "sample_limit": config.sample_limit,
        "rate_per_s": config.rate_per_s, "arrival": config.arrival, "mode": p.workload.mode,
    }
    if isinstance(p.contender, Target):
        return drivers.python_drivers(dict(spec, client="py", external=p.contender.description))
    if p.client.startswith("py"):
        return drivers.python_drivers(dict(spec, client=p.client))
    client = native.client(p.client, p.contender.protocol)
    if client is None:
        raise UsageError(f"no client {p.client!r} speaks {p.contender.protocol} (for {p.contender.id})")
    worker = client.worker
    spec["contender"] = client.id
    # A JIT (the JVM) is not warm after a short warm-up: its manifest sets the least that is honest.
    spec["warmup_s"] = max(config.warmup_s, float(worker.manifest.get("min_warmup_s", 0)))
    if p.contender.protocol == "tcp-raw":
        spec["payloads_b64"] = _payloads(p.workload)
    sync = bool(worker.manifest.get("drive_sync"))
    return [drivers.DriverSpec(worker.argv("drive"), dict(spec, sync=sync))]


def _payloads(workload: Workload) -> list[str]:
    from google.protobuf import json_format

    from rpcarena import schema

    cls = schema.message_class(schema.methods()[workload.method].request)
    return [base64.b64encode(json_format.ParseDict(r, cls()).SerializeToString()).decode()
            for r in workload.requests]


class Arena:
    """Runs the plans of a configuration and keeps the results document current."""

    def __init__(self, config: RunConfig, on_cell: Callable[[int, int, Plan, Cell | None], None] | None = None,
                 todo: list[Plan] | None = None):
        self.config = config
        self.todo = todo  # the cells to measure, when not the configuration's contenders x workloads
        self.placement: Placement = plan(config.pin)
        self.on_cell = on_cell or (lambda *args: None)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        self.logs = Path(config.out).parent / "logs" / stamp
        self.results = Results(environment=environment.snapshot(), config=config.to_json())
        self.results.extra["placement"] = self.placement.as_dict()
        self.failures: list[str] = []
        self.backing: Backing | None = None
        self.link: netlink.Link | None = None

    def run(self) -> Results:
        todo = self.todo if self.todo is not None else plans(self.config)
        try:
            with Backing([p.workload for p in todo], self.config.redis_url, self.config.host) as backing, \
                    self._link() as link:
                self.backing, self.link = backing, link
                self._run_all(todo)
        except KeyboardInterrupt:
            procs.kill_all()
            self.results.interrupted = "Ctrl-C"
            self.results.save(self.config.out)
            raise Interrupted(f"interrupted: {len(self.results.cells)} cells kept in {self.config.out}; "
                              "run again to measure the rest") from None
        finally:
            procs.kill_all()
        self.results.finished = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.results.save(self.config.out)
        return self.results

    def _link(self) -> Any:
        """The run's emulated link (one namespace for all its cells), or a null context."""
        if self.config.link is None:
            return contextlib.nullcontext(None)
        link = netlink.Link(self.config.link)
        self.results.extra["link"] = link.describe()
        return link

    def _run_all(self, todo: list[Plan]) -> None:
        for i, p in enumerate(todo):
            self.on_cell(i, len(todo), p, None)
            cell = self.measure(i, p)
            self.results.cells.append(cell)
            self.results.save(self.config.out)
            self.on_cell(i, len(todo), p, cell)
            if cell.status == "failed":
                self.failures.append(f"{p.label}: {cell.reason}")
                if self.config.fail_fast:
                    return

    def measure(self, i: int, p: Plan) -> Cell:
        cell = Cell(contender=p.contender.id, client=p.client, workload=p.workload.id,
                    method=p.workload.method, clients=p.clients, trial=p.trial, protocol=p.contender.protocol,
                    language=p.contender.language, rate_per_s=self.config.rate_per_s, link=self.config.link,
                    via=self.config.via, started=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        skip = skipped(p) or self._backing_missing(p) or self._network_missing(p)
        if skip:
            cell.status, cell.reason = skip
            return cell
        try:
            self._measure(i, p, cell)
        except UnavailableError as error:
            cell.status, cell.reason = "unavailable", str(error)
        except ArenaError as error:
            cell.status, cell.reason = "failed", str(error)
        return cell

    def _network_missing(self, p: Plan) -> tuple[str, str] | None:
        """Why the cell cannot go through --via or --link; notes a contender the proxy leaves direct."""
        if isinstance(p.contender, Target) and (self.config.via or self.config.link):
            return "unsupported", "an external target is measured where it runs (no --via, no --link)"
        reason = proxy.unsupported(p.contender.protocol, self.config.via)
        if reason:
            return "unsupported", reason
        if self.config.via and proxy.direct(p.contender.protocol, self.config.via) is None and proxy.unavailable():
            return "unavailable", proxy.unavailable()
        return None

    def _backing_missing(self, p: Plan) -> tuple[str, str] | None:
        reason = self.backing.why_not(p.workload) if self.backing else None
        return ("unavailable", reason) if reason else None

    def _measure(self, i: int, p: Plan, cell: Cell) -> None:
        logs = self.logs / f"cell-{i:04d}"
        before: dict = {}
        drift0 = environment.load_now()
        with self._server(p, logs) as server, contextlib.ExitStack() as front:
            server.start(self.config.port)
            target = self._front(p, cell, server, logs, front)
            specs = driver_specs(p, self.config, target)
            cell.warmup_s = specs[0].spec["warmup_s"]
            drive = drivers.Drive(specs, self.placement.clients, logs, server.alive, server.died_message)
            with self._wire(server.port) as counter:
                def on_warm() -> None:
                    before["usage"] = server.usage()
                    before["wire"] = counter.read() if counter else None
                result = drive.run(on_warm, self.config.cell_timeout_s)
                used = server.usage() - before["usage"]
                if counter:
                    self._record_wire(cell, counter.read() - before["wire"])
            cell.server_peak_rss_bytes = server.peak_rss_bytes()
            cell.placement = dict(self.placement.as_dict(), server_ran_on=where(server.pid) if server.pid else None)
        self._record(cell, result, used)
        cell.drift = {"before": drift0, "after": environment.load_now()}

    def _server(self, p: Plan, logs: Path) -> Any:
        """A fresh contender server (behind the run's link, if any), or an external target's stand-in."""
        if isinstance(p.contender, Target):
            return p.contender.server()
        if self.link is not None:
            return Server(p.contender, self.link.server_address, self.placement.server, logs / "server.log",
                          prefix=self.link.exec_prefix)
        return Server(p.contender, self.config.host, self.placement.server, logs / "server.log")

    def _front(self, p: Plan, cell: Cell, server: Any, logs: Path, stack: contextlib.ExitStack) -> str:
        """Where the drivers call: the server, or a fresh HAProxy before it (pinned with the server)."""
        note = proxy.direct(p.contender.protocol, self.config.via)
        if note:
            cell.via, cell.reason = "direct", note
        if self.config.via is None or note:
            return server.target
        front = stack.enter_context(proxy.Haproxy(server.target, self.placement.server, logs / "proxy"))
        return front.target

    def _wire(self, port: int | None) -> Any:
        """Kernel byte counters on the server port, or a null context where they cannot be had."""
        if port is None:  # an external server on another host
            return contextlib.nullcontext(None)
        reason = wire.unavailable()
        if reason:
            self.results.extra["wire_unavailable"] = reason
            return contextlib.nullcontext(None)
        return wire.Counter(port, self.link.netns if self.link else None)

    @staticmethod
    def _record_wire(cell: Cell, count: wire.Count) -> None:
        cell.wire_in_bytes, cell.wire_in_packets = count.in_bytes, count.in_packets
        cell.wire_out_bytes, cell.wire_out_packets = count.out_bytes, count.out_packets

    @staticmethod
    def _record(cell: Cell, result: dict, used) -> None:
        cell.calls = result["calls"]
        cell.errors = {kind: n for kind, n in result["errors"].items() if n}
        cell.error_examples = result.get("error_examples", {})
        cell.wall_s = result["wall_s"]
        cell.latency_histogram = result["histogram"]
        cell.latency_uncorrected_histogram = result.get("histogram_uncorrected")
        cell.samples_ns = result["samples"]
        cell.late_calls = result.get("late_calls", 0)
        cell.retries = result.get("retries", 0)
        cell.client_cpu_user_s = result["cpu_user_s"]
        cell.client_cpu_sys_s = result["cpu_sys_s"]
        cell.client_processes = result.get("processes", 1)
        cell.client_tool = result.get("tool", {})
        cell.server_counters_include_warmup = result.get("server_counters_include_warmup", False)
        cell.server_cpu_user_s, cell.server_cpu_sys_s = used.cpu_user_s, used.cpu_sys_s


