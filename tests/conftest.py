"""Shared fixtures: real servers on ephemeral ports, and the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rpcarena import contenders
from rpcarena.server import Server

ROOT = Path(__file__).resolve().parents[1]


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
