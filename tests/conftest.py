"""Shared fixtures: real servers on ephemeral ports, and the CLI in a subprocess."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import rpcarena
from rpcarena import contenders
from rpcarena.contract import DriveResult
from rpcarena.errors import ServerError
from rpcarena.network import wire
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.backing import Backing
from rpcarena.orchestration.context import RunContext
from rpcarena.orchestration.measurement import Measurement, ServerFigures
from rpcarena.orchestration.plan import CellRunner, Plan
from rpcarena.process import placement
from rpcarena.process.server_process import ServerProcess, Usage

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "results_usp_int32_small.json"


class FakeCells(CellRunner):
    """A cell runner that starts nothing (hyperfine's mock executor): every cell it measures returns
    the fixture's first measured cell as a template measurement (the arena labels and stores it),
    so the arena, --repeat, --find-max, suites and reports run without a server. `fail` names
    contenders whose cells fail; `skip` those skipped."""

    def __init__(self, fail: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> None:
        self.template = template_measurement(rpcarena.load(FIXTURE).cells[0])
        self.fail, self.skip_ids = fail, skip
        self.measured: list[str] = []

    def skip(self, plan: Plan, context: RunContext):
        return ("unsupported", "skipped by the fake runner") if plan.subject.id in self.skip_ids else None

    def measure(self, plan: Plan, context: RunContext, logs: Path) -> Measurement:
        self.measured.append(plan.label)
        if plan.subject.id in self.fail:
            raise ServerError(f"{plan.subject.id} server died (fake)")
        return dataclasses.replace(self.template, warmup_s=context.config.warmup_s)


def template_measurement(cell) -> Measurement:
    """A stored cell's figures as the measurement a runner would have returned for it."""
    clients = DriveResult(calls=cell.calls, errors=dict(cell.errors), wall_s=cell.wall_s,
                          cpu_user_s=cell.client_cpu_user_s, cpu_sys_s=cell.client_cpu_sys_s,
                          histogram=cell.latency_histogram, samples=copy.deepcopy(cell.samples_ns), tool={})
    wired = wire.Count(cell.wire_in_bytes, cell.wire_in_packets, cell.wire_out_bytes, cell.wire_out_packets)
    return Measurement(clients, cell.client_processes,
                       ServerFigures(Usage(cell.server_cpu_user_s, cell.server_cpu_sys_s), wired))


NOISE = (1.0, 1.02, 0.98, 1.01, 0.99)  # five trials that differ a little, as trials do


def trials(contender: str, workload: str, scale: float = 1.0, *, clients: int = 1, noise=NOISE,
           link: str | None = None, cpu: float | None = None) -> list:
    """A group of trials cut from the fixture's first cell, relabelled: trial k's latencies are the
    fixture's times `scale` times noise[k]; its CPU per call the fixture's times `cpu` (default
    `scale`) times noise[k]. A judge's test builds its document from these, so it knows the answer."""
    template = rpcarena.load(FIXTURE).cells[0]
    out = []
    for k, wobble in enumerate(noise):
        cell = dataclasses.replace(template.slowed(scale * wobble), contender=contender, workload=workload,
                                   clients=clients, trial=k, link=link)
        spent = (scale if cpu is None else cpu) * wobble
        for name in ("client_cpu_user_s", "client_cpu_sys_s", "server_cpu_user_s", "server_cpu_sys_s"):
            setattr(cell, name, getattr(template, name) * spent)
        out.append(cell)
    return out


def document(*groups: list) -> rpcarena.Results:
    """A results document of these groups of trials (see `trials`)."""
    return rpcarena.Results(cells=[cell for g in groups for cell in g])


def fake_plans(config, runner=None):
    """The configuration's contender plans, each measured by the fake runner."""
    runner = runner or FakeCells()
    return [dataclasses.replace(p, runner=runner) for p in contender_cells.plans(config)]


@contextlib.contextmanager
def fake_context(config, workloads):
    """A run context that starts no Redis and makes no link (the suites' network parts included)."""
    with Backing([], {}, config.host) as backing:
        yield RunContext(config, placement.plan("none"), Path(config.out).parent / "logs", backing, None,
                         "not counted: a fake run")


def fake_arena(config, runner=None):
    """The real arena over fake cells: what suite tests run in place of measuring."""
    return Arena(config, fake_plans(config, runner), context=fake_context).run()


@pytest.fixture
def start_server(tmp_path):
    """start_server(contender_id) -> a running Server on 127.0.0.1, port 0; stopped after the test."""
    started: list[ServerProcess] = []

    def start(contender_id: str) -> ServerProcess:
        server = ServerProcess(contenders.get(contender_id), "127.0.0.1", None, tmp_path / f"{contender_id}.log")
        started.append(server.start())
        return server

    yield start
    for server in started:
        server.stop()


def run_cli(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """`rpcarena ARGS` in a fresh process, output captured."""
    return subprocess.run([sys.executable, "-m", "rpcarena", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=kwargs.pop("cwd", None), env=kwargs.pop("env", os.environ.copy()),
                          **kwargs)


def popen_cli(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rpcarena", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def descendants(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def command_of(proc: psutil.Process) -> str:
    """The process's command line, or "" once it is gone or a zombie (it can die between the
    listing and the read)."""
    try:
        return " ".join(proc.cmdline())
    except psutil.Error:
        return ""


def wait_for(predicate, timeout_s: float = 60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not reached")


def cells_in(path) -> int:
    try:
        return len(json.loads(path.read_text())["cells"])
    except (OSError, ValueError):
        return 0


def server_of(cli: psutil.Process, contender: str):
    """The contender's server once a driver has connected to it (drivers start before their server is up)."""
    for child in descendants(cli):
        command = command_of(child)
        if "rpcarena.worker.serve" in command and contender in command.split():
            return child if connected(child.pid) else None
    return None


def connected(pid: int) -> bool:
    """Whether the process holds an established TCP connection, read in its own network namespace
    (/proc/PID/net/tcp*: a server behind a link is in another one than the test)."""
    try:
        inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")}
        rows = [line.split() for name in ("tcp", "tcp6") for line in open(f"/proc/{pid}/net/{name}").readlines()[1:]]
    except OSError:
        return False
    return any(row[3] == "01" and row[9] in inodes for row in rows)  # 01: ESTABLISHED
