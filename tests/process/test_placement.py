"""Which CPUs the server and the clients get, by --pin policy."""

from __future__ import annotations

import pytest

from rpcarena.process import placement


@pytest.mark.parametrize("policy,cpus,server,clients", [
    ("split", [0, 1], (0,), (1,)), ("same", [0, 1], (0,), (0,)), ("none", [0, 1], None, None),
    ("split", [0, 1, 2, 3], (0, 1), (2, 3)), ("split", [0], (0,), (0,))])
def test_placement(policy, cpus, server, clients):
    planned = placement.plan(policy, cpus)
    assert (planned.server, planned.clients) == (server, clients)
