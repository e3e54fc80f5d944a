"""Shared fixtures: real servers on ephemeral ports, and the CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from rpcarena import contenders
from rpcarena.server import Server

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "results_usp_int32_small.json"


def fake_arena(config):
    """Stands in for the arena in suite tests: the fixture's first real measured cell, relabelled
    for each (contender, workload) of the part and for its network (via, link)."""
    import copy

    import rpcarena

    doc = rpcarena.load(FIXTURE)
    cells = []
    for contender in config.contenders:
        for workload in config.workloads:
            copied = copy.deepcopy(doc.cells[0])
            copied.contender, copied.workload = contender, workload
            copied.via, copied.link = config.via, config.link
            cells.append(copied)
    doc.cells, doc.config = cells, config.to_json()
    return doc


@pytest.fixture
def start_server(tmp_path):
    """start_server(contender_id) -> a running Server on 127.0.0.1, port 0; stopped after the test."""
    started: list[Server] = []

    def start(contender_id: str) -> Server:
        server = Server(contenders.get(contender_id), "127.0.0.1", None, tmp_path / f"{contender_id}.log")
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
    for child in descendants(cli):
        try:
            if "rpcarena.serve" in " ".join(child.cmdline()) and contender in child.cmdline():
                drivers = [c for c in descendants(cli) if "rpcarena.drive" in " ".join(c.cmdline())]
                return child if drivers else None
        except psutil.NoSuchProcess:
            continue
    return None
