"""Shared fixtures, and the tiers: which tests are end to end (`e2e`) and which must run alone (`serial`).

Every test that starts a server, a CLI in a fresh process, a native worker or a schema build is
marked `e2e` here, by the rule of tests/helpers/tiers.py (no test is marked by hand); the rest is
the unit tier (`make check`: `pytest -m "not e2e"`), where a test that starts a process fails.
A module of timing- or CPU-sensitive tests (an open loop's pacing, contention, drift, a link,
pinned CPUs) says `pytestmark = pytest.mark.serial`: under xdist (`--dist loadgroup`) its tests
run one after another on one worker with the other serial modules. A module's tests that share a
fixture made once (a server, a build) stay together on one worker; the rest go to whichever worker
is free.

The helpers live in tests/helpers/ (`from tests.helpers.cli import run_cli`); the names below are
imported here too, for the tests that import them from conftest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rpcarena import contenders
from rpcarena.__main__ import fork_without_grpc_handlers
from rpcarena.orchestration import contender_cells
from rpcarena.process.server_process import ServerProcess
from rpcarena.workloads import WORKLOADS
from tests.helpers import FIXTURE, ROOT
from tests.helpers.cli import cli, popen_cli, run_cli
from tests.helpers.fakes import (
    NOISE,
    FakeCells,
    document,
    fake_arena,
    fake_context,
    fake_plans,
    template_measurement,
    trials,
)
from tests.helpers.processes import available, cells_in, command_of, descendants, server_of, wait_for
from tests.helpers.tiers import guard_unit, is_e2e

# The tests run the command in this process too (`cli(...)`), beside their own gRPC servers: as the
# command does, before grpc loads
fork_without_grpc_handlers(os.environ)

__all__ = ["FIXTURE", "NOISE", "ROOT", "FakeCells", "cells_in", "cli", "command_of", "descendants", "document",
           "fake_arena", "fake_context", "fake_plans", "popen_cli", "run_cli", "server_of", "template_measurement",
           "trials", "wait_for"]


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_e2e(item):
            item.add_marker(pytest.mark.e2e)
        group = "serial" if item.get_closest_marker("serial") else _shared_by_module(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


def _shared_by_module(item: pytest.Item) -> str | None:
    """The test's file, when the test uses a fixture of tests/ made once for more than one test (a
    module's server, a build): its module's tests then run on one worker, which makes it once. Other
    tests go to whichever worker is free."""
    info = getattr(item, "_fixtureinfo", None)
    for name in item.fixturenames if info else ():
        defs = info.name2fixturedefs.get(name, ())
        if defs and defs[-1].scope != "function" and "tests" in Path(defs[-1].func.__code__.co_filename).parts:
            return item.nodeid.partition("::")[0]
    return None


@pytest.fixture(autouse=True)
def unit_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit test that starts a process fails, naming what it started (tiers.guard_unit)."""
    if not request.node.get_closest_marker("e2e"):
        guard_unit(monkeypatch, request.node.nodeid)


@pytest.fixture(autouse=True)
def workload_registry() -> Iterator[None]:
    """The workloads registered as they were before the test: a user's schema a test builds
    registers its workload, which must not reach the next test in the process (`list`, the fuzz seeds)."""
    saved = dict(WORKLOADS)
    yield
    WORKLOADS.clear()
    WORKLOADS.update(saved)


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


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server of the contender a test is parametrized with, indirectly
    (`@pytest.mark.parametrize("served", IDS, indirect=True)`), on 127.0.0.1, port 0: one for all the
    module's tests of that contender, which pytest runs one after another; for tests that need a
    server, not a fresh one. Skipped where the contender cannot run, except in CI, where it must."""
    yield from serve_shared(request, tmp_path_factory)


def serve_shared(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """`served`'s server, started with `env` added to the environment (a module's own fixture: a
    short idle timeout), stopped after its tests."""
    available(request.param)
    contender = contenders.get(request.param)
    log = tmp_path_factory.mktemp("served") / f"{contender.id}.log"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        server = ServerProcess(contender, "127.0.0.1", None, log).start()
    try:
        yield server
    finally:
        server.stop()


COLD_TIMEOUT_S = 60  # a call's timeout where a JVM's first calls are measured cold, on a busy machine


@pytest.fixture
def no_jit_warmup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells measured in this process (`cli`, `Arena`) without the least warm-up a JIT's manifest asks
    (`min_warmup_s`: 5 s a JVM cell, server or client): for tests of answers, not of speed. A cold
    JVM's first call can take seconds on a busy machine: such a test gives its calls COLD_TIMEOUT_S."""
    monkeypatch.setattr(contender_cells, "_least_warmup_s", lambda side: 0.0)
