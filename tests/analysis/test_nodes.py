"""Each client node's part of a cluster cell (analysis.nodes) and the answer's line (report.nodes):
shares from the nodes' calls, a node client-bound past 90% of the CPUs its drivers could use."""

from __future__ import annotations

from rpcarena.analysis.nodes import shares
from rpcarena.report.nodes import node_lines
from rpcarena.results import Cell, Results


def _cell(client: str, **nodes: dict) -> Cell:
    return Cell("http", client, "POST /x", "POST /x", 4, calls=sum(n["calls"] for n in nodes.values()),
                cluster={"server_node": None, "client_nodes": list(nodes), "nodes": nodes})


def _node(calls: int, cpu_s: float, processes: int = 1, cpus: list[int] | None = None) -> dict:
    return {"calls": calls, "wall_s": 1.0, "cpu_user_s": cpu_s, "cpu_sys_s": 0.0, "processes": processes,
            "cpus": cpus}


def test_shares_and_the_client_bound_node():
    facts = {"a": {"cpus": 2}, "b": {"cpus": 2}}
    # Python: one driver process runs on one CPU at a time, so 0.95 s in 1 s is bound on a 2-CPU node
    a, b = shares(_cell("py", a=_node(300, 0.95), b=_node(100, 0.2)), facts)
    assert (a.node, a.calls, round(a.share, 2), a.cpus, a.client_bound) == ("a", 300, 0.75, 1, True)
    assert (b.calls, round(b.share, 2), b.client_bound) == (100, 0.25, False)
    # a native driver may use every core: 0.95 s of 2 CPUs is not bound; pinned CPUs count instead
    go = shares(_cell("go", a=_node(10, 0.95), b=_node(10, 0.95, cpus=[1])), facts)
    assert [(s.cpus, s.client_bound) for s in go] == [(2, False), (1, True)]


def test_one_line_per_cluster_cell_naming_the_bound_node():
    results = Results(cells=[_cell("py", a=_node(30, 0.95), b=_node(10, 0.1)), Cell("x", "py", "w", "w", 1)],
                      cluster={"nodes": {"a": {"cpus": 2}, "b": {"cpus": 2}}})
    (line,) = node_lines(results)
    assert line.startswith("nodes http<-py x4: a 30 calls (75%), drivers 95% of 1 CPU(s); b 10 calls (25%)")
    assert line.endswith("client-bound: a (add a node or use a native client)")
