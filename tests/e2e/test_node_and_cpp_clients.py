"""The fifth language and gRPC's C++ core called across languages (issue 46): the Go and Python
clients drive grpc-node and grpc-cpp, and the Node client drives grpc-node, rest-fastify and grpc-go,
every reply checked."""

from __future__ import annotations

import pytest

import rpcarena
from tests.conftest import cli
from tests.helpers.processes import available

WORKLOADS = "usp.distance,hprpc.large1024"
CALLS = 200


def _measured(tmp_path, *argv: str) -> list[tuple[str, str, str, str, int, int]]:
    out = tmp_path / "r.json"
    done = cli("run", *argv, "--workload", WORKLOADS, "--calls", str(CALLS), "--warmup", "0s", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return sorted((c.contender, c.client, c.workload, c.status, c.calls, sum(c.errors.values()))
                  for c in rpcarena.load(out).cells)


@pytest.mark.parametrize("contender", ["grpc-node", "grpc-cpp"])
def test_the_go_and_python_clients_drive_it(contender, tmp_path):
    available(contender)
    cells = _measured(tmp_path, "--contender", contender, "--client", "go,py")
    assert cells == sorted((contender, client, workload, "ok", CALLS, 0)
                           for client in ("go", "py") for workload in WORKLOADS.split(","))


def test_the_node_client_drives_node_and_go_servers(tmp_path):
    for contender in ("grpc-node", "rest-fastify", "grpc-go"):
        available(contender)
    cells = _measured(tmp_path, "--contender", "grpc-node,rest-fastify,grpc-go", "--client", "node")
    assert cells == sorted((contender, "node", workload, "ok", CALLS, 0)
                           for contender in ("grpc-node", "rest-fastify", "grpc-go")
                           for workload in WORKLOADS.split(","))
