"""Cells against a contender: a fresh server per cell, driven by its own or another client.

This is the runner of every plan whose subject is a contender (`rpcarena run`,
`rpcarena suite`). It knows which clients can drive which protocol, when a cell
cannot run here, how to put a proxy in front of the server, and what spec each
driver gets.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from rpcarena import contenders as registry
from rpcarena import seeds
from rpcarena.clients import is_python
from rpcarena.config import CellKey, RunConfig
from rpcarena.contenders import native
from rpcarena.contenders.base import Contender
from rpcarena.contract import FLOOR_PROTOCOL, DriveSpec
from rpcarena.errors import UsageError
from rpcarena.network import proxy
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.kept import Kept, warms_once
from rpcarena.orchestration.measure import measure
from rpcarena.orchestration.measurement import Measurement
from rpcarena.orchestration.phase import Drivers, DriverSpec, EarlyDrivers, python_drivers
from rpcarena.orchestration.plan import CellRunner, Plan, Skip
from rpcarena.process.server_process import ServerProcess
from rpcarena.protocol import schema
from rpcarena.userschema.samples import message_of
from rpcarena.workloads import Workload

FLOOR_MEASUREMENTS = 2  # at least, per workload and concurrency, for a floor that divides other cells


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


def plans(config: RunConfig, runner: CellRunner | None = None) -> list[Plan]:
    """Every cell of a configuration: trials x workloads x concurrency x contenders x clients, each
    measured by `runner` (default: a fresh server here; `rpcarena.cluster.cells` puts them on nodes).

    The cells a ranking compares (one workload and concurrency, every contender) run one after
    another, and trials are outermost: each trial of every contender is measured in turn before
    the next (multiple interleaved trials, Abedi & Brecht, ICPE 2017), their order rotating by one
    each trial (or shuffled per trial from `config.order_seed`, as suites do) so that no contender
    always runs first. A machine that drifts over the run then
    weighs on every contender alike instead of on whichever ran last, a floor is measured next to
    the cells it divides, and a contender's trials sample the whole run, so their spread shows what
    the next run may differ by.

    With one trial, a floor that divides other cells is measured once more after them
    (`FLOOR_MEASUREMENTS`): noise only adds latency, so the floor is the least of its measurements
    (`analysis.floor`), and one unlucky echo process would put its contenders below it.

    `config.cells`, when given, keeps only those cells of the product (a suite's --quick), in this order.
    """
    chosen = [registry.get(c) for c in config.contenders]
    loads = seeds.select(config.workloads)
    runner = runner or CONTENDER_CELLS
    again = _floors_dividing(chosen, config) if config.repeat < FLOOR_MEASUREMENTS else []
    found = []
    for trial in range(config.repeat):
        for workload, clients in itertools.product(loads, config.clients):
            turn = [(c, trial) for c in _ordered(chosen, trial, config.order_seed)]
            turn += [(c, config.repeat + trial) for c in again]
            found += [Plan(contender, client, workload, clients, index, runner, registry.client_language(client))
                      for contender, index in turn for client in client_ids(contender, config.client_drivers)]
    return found if config.cells is None else [p for p in found if _wanted(p, config.cells, config.client_drivers)]


def _wanted(p: Plan, cells: list[CellKey], drivers: list[str] | None) -> bool:
    """Whether `cells` name the plan: with its client, or without one (None) when it is the contender's
    first client in the configuration (the one a claim means by the contender's name alone)."""
    named = (p.subject.id, p.client, p.workload.id, p.clients) in cells
    first = client_ids(registry.get(p.subject.id), drivers)[0] == p.client
    return named or (first and (p.subject.id, None, p.workload.id, p.clients) in cells)


def _floors_dividing(chosen: list[Contender], config: RunConfig) -> list[Contender]:
    """The floors (tcp-raw echoes) whose client language drives another of the chosen contenders."""
    def languages(contender: Contender) -> set[str]:
        return {registry.client_language(c) for c in client_ids(contender, config.client_drivers)}

    others = set().union(*(languages(c) for c in chosen if c.protocol != FLOOR_PROTOCOL))
    return [c for c in chosen if c.protocol == FLOOR_PROTOCOL and languages(c) & others]


def _ordered(items: list[Contender], trial: int, seed: int | None) -> list[Contender]:
    """The contenders' order in one trial: shuffled from the recorded `seed` and the trial (so a run
    can be replayed in the same order), or rotated by one each trial without a seed."""
    if seed is None:
        return _rotated(items, trial)
    shuffled = list(items)
    random.Random(seed * 1_000_003 + trial).shuffle(shuffled)
    return shuffled


def _rotated(items: list[Contender], by: int) -> list[Contender]:
    by %= len(items) or 1
    return items[by:] + items[:by]


class ContenderCells(CellRunner):
    """The runner of contender cells: a fresh server per cell, or per trial where a client's runtime is kept
    warm from cell to cell (`kept`)."""

    def __init__(self) -> None:
        self.kept: Kept | None = None  # the run's kept pairs, while a run has this runner opened

    @contextlib.contextmanager
    def opened(self, context: RunContext) -> Iterator[None]:
        self.kept = Kept()
        try:
            yield None
        finally:
            self.kept.close()
            self.kept = None

    def skip(self, plan: Plan, context: RunContext) -> Skip | None:
        contender = _contender(plan)
        reason = contender.unavailable()
        if reason:
            return "unavailable", reason
        reason = contender.unsupported(plan.workload.method)
        if reason:
            return "unsupported", reason
        return (client_cannot(plan, contender) or _backing_missing(plan, context)
                or _network_missing(contender, context))

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        contender = _contender(plan)
        specs = driver_specs(plan, contender, context.config, "")  # the address once the server is up
        with contextlib.ExitStack() as stack:
            server, drivers = self._processes(plan, contender, specs, context, logs, stack)
            address, helpers = _front(contender, context, server.target, logs, stack)
            specs = drivers.prepared([DriverSpec(d.argv, d.spec.but(target=address)) for d in specs],
                                     context.config.warmup_s, context.config.warmup_max_s)
            measured = measure(server, specs, context, logs, helpers, drivers)
        note = proxy.direct(contender.protocol, context.config.via)
        return replace(measured, via="direct", note=note) if note else measured

    def _processes(self, plan: Plan, contender: Contender, specs: list[DriverSpec], context: RunContext,
                   logs: Path, stack: contextlib.ExitStack) -> tuple[ServerProcess, Drivers]:
        """The cell's server, and where its drivers come from: a kept pair (a client whose runtime warms once),
        or a fresh server with its drivers started before it is up; each closed with `stack`."""
        def start() -> ServerProcess:
            return _started(contender, context, logs)
        if self.kept is not None and warms_once(native_client(plan, contender)):
            pair = stack.enter_context(self.kept.pair(plan, start))
            return pair.server, pair
        early = stack.enter_context(
            EarlyDrivers([context.client_prefix + d.argv for d in specs], context.placement.clients, logs))
        return stack.enter_context(start()), early


def _started(contender: Contender, context: RunContext, logs: Path) -> ServerProcess:
    """A fresh server, up (stopped again if it does not come up)."""
    server = ServerProcess(contender, context.server_host, context.placement.server, logs / "server.log",
                           prefix=context.server_prefix, services=context.backing.urls)
    try:
        return server.start(context.config.port)
    except BaseException:
        server.stop()
        raise


CONTENDER_CELLS = ContenderCells()


def _contender(plan: Plan) -> Contender:
    return registry.get(plan.subject.id)


def client_cannot(p: Plan, contender: Contender, here: bool = True) -> Skip | None:
    """Why the plan's client cannot make this call (a stream its protocol's client lacks); `here`:
    also a native client that cannot be built on this machine (a cluster's nodes build their own)."""
    if is_python(p.client):
        if p.workload.mode != "unary" and p.client not in registry.python_client_ids(contender.protocol,
                                                                                      p.workload.mode):
            return "unsupported", f"no Python {p.workload.mode.replace('_', ' ')} client for {contender.protocol}"
        return None
    client = native.client(p.client, contender.protocol)
    if client is None:
        return "unsupported", f"no client {p.client!r} speaks {contender.protocol}"
    if here and (reason := client.unavailable()):
        return "unavailable", f"the {p.client} client: {reason}"
    reason = client.unsupported(p.workload.method)
    return ("unsupported", f"the {p.client} client: {reason}") if reason else None


def _backing_missing(p: Plan, context: RunContext) -> Skip | None:
    reason = context.backing.why_not(p.workload)
    return ("unavailable", reason) if reason else None


def _network_missing(contender: Contender, context: RunContext) -> Skip | None:
    """Why the cell cannot go through --via: a protocol the proxy does not carry, or no proxy here."""
    via = context.config.via
    reason = proxy.unsupported(contender.protocol, via)
    if reason:
        return "unsupported", reason
    if via and proxy.direct(contender.protocol, via) is None and proxy.unavailable():
        return "unavailable", proxy.unavailable() or ""
    return None


def _front(contender: Contender, context: RunContext, address: str, logs: Path,
           stack: contextlib.ExitStack) -> tuple[str, list[proxy.Haproxy]]:
    """Where the drivers call: the server, or a fresh HAProxy before it (pinned with the server),
    watched while they do; the server itself for a protocol the proxy leaves alone."""
    via = context.config.via
    if via is None or proxy.direct(contender.protocol, via):
        return address, []
    front = stack.enter_context(proxy.Haproxy(address, context.placement.server, logs / "proxy",
                                              prefix=context.client_prefix))
    return front.target, [front]


def driver_specs(p: Plan, contender: Contender, config: RunConfig, address: str) -> list[DriverSpec]:
    """The drivers of a contender cell: Python driver processes, or one native driver."""
    client = native_client(p, contender)
    spec = drive_spec(p, contender, config, address, client)
    return python_drivers(spec) if client is None else [DriverSpec(client.driver_argv(spec.schema_b64), spec)]


def drive_spec(p: Plan, contender: Contender, config: RunConfig, address: str,
               client: native.NativeContender | None) -> DriveSpec:
    """What a contender cell's drivers are asked to do, wherever they run (here, or on a cluster's
    nodes, which pick their own argv for it); `client` is the plan's `native_client`. Python drivers
    are told which Python client; a native driver is named by its own id, told whether to sync, how
    long its JIT may warm up, and tcp-raw's requests encoded."""
    workload = p.workload
    manifest = client.worker.manifest if client else {}
    return DriveSpec.for_cell(
        config, contender=client.id if client else contender.id, target=address, method=workload.method,
        requests=workload.requests, responses=workload.responses, clients=p.clients, mode=workload.mode,
        least_warmup_s=max(_least_warmup_s(contender), _least_warmup_s(client)),
        told_warmup_max=client is not None, own_warmup_max_s=manifest.get("max_warmup_s"),
        client=None if client else p.client, sync=bool(manifest.get("drive_sync")),
        payloads_b64=_payloads(workload) if client and contender.protocol == "tcp-raw" else None,
        schema_b64=schema.user_set_b64() if schema.methods()[workload.method].user else None)


def _least_warmup_s(side: Contender | None) -> float:
    """The warm-up a native worker's runtime needs at least (its manifest's min_warmup_s), server or client."""
    if not isinstance(side, native.NativeContender):
        return 0.0
    return float(side.worker.manifest.get("min_warmup_s", 0))


def native_client(p: Plan, contender: Contender) -> native.NativeContender | None:
    """The plan's native client, found once per cell; None for a Python client."""
    if is_python(p.client):
        return None
    client = native.client(p.client, contender.protocol)
    if client is None:
        raise UsageError(f"no client {p.client!r} speaks {contender.protocol} (for {contender.id})")
    return client


def _payloads(workload: Workload) -> list[str]:
    """tcp-raw to a native driver: each request's protobuf encoding, base64."""
    cls = schema.message_class(schema.methods()[workload.method].request)
    return [base64.b64encode(message_of(r, cls).SerializeToString()).decode()
            for r in workload.requests]
