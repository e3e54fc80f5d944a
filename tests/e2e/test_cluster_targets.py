"""`rpcarena target --cluster`: a target's clients on two client nodes, across an emulated link.

One testbed for the module (rpcarena.cluster.testbed: two client nodes before a 10 ms link, a
server node behind it) and, in its server namespace, two real servers rpcarena did not start for
the run: rest-fastapi and grpc-go, as a user's own service would be. The CLI is given the
testbed's scheduler (`tls://`, with its credentials in the environment, as a user gives them).
Asserted: the nodes' calls sum to the cell's, both nodes called, each node's part is kept, the
answer names each node's share, and p50 is at least the link's delay (no call can cross the
emulated link faster than its netem delay: a bound of the setup, not a measured duration).
"""

from __future__ import annotations

import json

import pytest

from rpcarena import contenders, load
from rpcarena.cluster_spec import Node, target_clients
from rpcarena.process.server_process import ServerProcess
from rpcarena.record import hist
from tests.conftest import run_cli
from tests.e2e.test_cluster import _credentials, _need_testbed
from tests.e2e.test_cluster_tls import greeter  # noqa: F401, F811 - a fixture

pytestmark = pytest.mark.serial  # timing-sensitive: a testbed's nodes across an emulated link

distributed = pytest.importorskip("distributed")
RTT_MS = 10


def _node(name: str, **resources: float) -> Node:
    return Node(f"tcp://10.0.0.{len(name)}:1{len(name)}", name, resources)


def test_a_target_is_driven_from_every_node_but_the_servers_by_default():
    plain = [_node("a"), _node("bb"), _node("server")]
    assert [n.name for n in target_clients(plain, None)] == ["a", "bb"]
    tagged = [_node("a", client=1), _node("bb"), _node("ccc", server=1)]
    assert [n.name for n in target_clients(tagged, None)] == ["a"]
    assert [n.name for n in target_clients(plain, ["server"])] == ["server"]  # asked for: drives too
    assert [n.name for n in target_clients([_node("0"), _node("11")], None)] == ["0", "11"]  # local:N


@pytest.fixture(scope="module")
def testbed(tmp_path_factory):
    _need_testbed()
    from rpcarena.cluster.testbed import Testbed

    with Testbed(f"rtt={RTT_MS}ms", 2, tmp_path_factory.mktemp("testbed")) as bed, _credentials(bed):
        yield bed


@pytest.fixture(scope="module")
def services(testbed, tmp_path_factory):
    """rest-fastapi and grpc-go in the server namespace, on its address: the user's own servers."""
    logs = tmp_path_factory.mktemp("services")
    host = testbed.link.server_address
    prefix = testbed.link.server_prefix
    with ServerProcess(contenders.get("rest-fastapi"), host, None, logs / "rest.log", prefix=prefix) as rest, \
            ServerProcess(contenders.get("grpc-go"), host, None, logs / "grpc.log", prefix=prefix) as grpc:
        rest.start(0)
        grpc.start(0)
        yield {"http": f"http://{host}:{rest.port}/arena/SayHello", "grpc": f"grpc://{host}:{grpc.port}"}


def _target(testbed, tmp_path, *args: str):
    out = tmp_path / "t.json"
    done = run_cli("target", "--cluster", testbed.address, *args, "--clients", "4", "--calls", "80",
                   "--warmup", "0.2s", "--out", str(out), timeout=180)
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    return cell, done.stdout


def _merged_over_two_nodes(cell, stdout: str) -> None:
    assert cell.status == "ok" and cell.errors == {}, cell.reason
    nodes = cell.cluster["nodes"]
    assert cell.cluster["client_nodes"] == ["client-0", "client-1"] and cell.cluster["server_node"] is None
    assert cell.calls == 80 == sum(nodes[n]["calls"] for n in ("client-0", "client-1"))
    for name in ("client-0", "client-1"):
        assert hist.decode(nodes[name]["histogram"]).get_total_count() == nodes[name]["calls"] == 40
        assert nodes[name]["rtt_ms"] is not None
    assert cell.histogram.get_total_count() == 80
    assert cell.latency["p50_us"] >= RTT_MS * 1000 * 0.95  # every call crossed the delay line
    assert cell.placement["server"].startswith("external at ")
    # TCP_NODELAY read on each node, by its own task, from the drivers' sockets to the target
    assert sorted(cell.tcp_nodelay["client_nodes"]) == ["client-0", "client-1"]
    assert cell.tcp_nodelay["client"] in (True, False) and cell.tcp_nodelay["server"] is None
    words = " ".join(stdout.split())  # the answer wraps at the terminal's width
    assert "client-0 40 calls (50%)" in words and "client-1 40 calls (50%)" in words, stdout


def test_http_target_with_the_python_driver_on_two_nodes(testbed, services, tmp_path):
    cell, stdout = _target(testbed, tmp_path, services["http"], "--body", json.dumps({"name": "ann"}),
                           "--expect-json", "message=Hello ann")
    assert cell.client == "py"
    _merged_over_two_nodes(cell, stdout)


def test_grpc_target_with_the_go_driver_on_two_nodes(testbed, services, tmp_path):
    cell, stdout = _target(testbed, tmp_path, services["grpc"], "--method", "arena.Arena/SayHello",
                           "--proto", "proto/arena.proto", "--data", json.dumps({"name": "ann"}),
                           "--expect-json", "message=Hello ann", "--client", "go")
    assert cell.client == "go"
    _merged_over_two_nodes(cell, stdout)


def test_find_max_on_two_nodes_keeps_each_probes_node_calls(testbed, services, tmp_path):
    """--find-max --cluster: the capacity run and every probe on one connection to the cluster,
    each probe's calls split over the nodes (the rate is shared as the clients are)."""
    out = tmp_path / "f.json"
    done = run_cli("target", "--cluster", testbed.address, services["http"], "--body", json.dumps({"name": "ann"}),
                   "--find-max", "--slo", "p99<1s", "--clients", "2", "--duration", "0.5s", "--warmup", "0.2s",
                   "--out", str(out), timeout=240)
    assert done.returncode == 0, done.stderr
    doc = load(out)
    (answer,) = doc.find_max
    assert answer["max_rate_per_s"] > 0 and len(answer["probes"]) == 6
    for probe, cell in zip(answer["probes"], doc.cells[1:], strict=True):
        assert sorted(probe["node_calls"]) == ["client-0", "client-1"], probe
        assert sum(probe["node_calls"].values()) == cell.calls > 0
    assert "max " in done.stdout and "calls/s meeting p99" in done.stdout, done.stdout


def test_local_workers_drive_a_target_on_this_machine(greeter, tmp_path):  # noqa: F811 - the fixture
    """`local:2`: both worker processes drive (no node is the server's), their calls summed."""
    out = tmp_path / "l.json"
    done = run_cli("target", "--cluster", "local:2", greeter, "--body", json.dumps({"name": "ann"}),
                   "--expect-json", "message=Hello ann",
                   "--clients", "2", "--calls", "40", "--warmup", "0.1s", "--out", str(out), timeout=180)
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    parts = [cell.cluster["nodes"][name]["calls"] for name in cell.cluster["client_nodes"]]
    assert len(parts) == 2 and sum(parts) == cell.calls == 40 and min(parts) > 0
    assert "no node client-bound" in done.stdout or "client-bound:" in done.stdout, done.stdout


@pytest.mark.parametrize("client", ["py", "go"])
def test_a_wrong_answer_is_caught_by_a_first_call_from_a_node_before_measuring(testbed, services, tmp_path, client):
    out = tmp_path / "t.json"
    done = run_cli("target", "--cluster", testbed.address, services["http"], "--body", json.dumps({"name": "ann"}),
                   "--expect-json", "message=Hello bob", "--client", client, "--clients", "2", "--calls", "20",
                   "--warmup", "0s", "--out", str(out), timeout=180)
    assert done.returncode != 0
    (cell,) = load(out).cells
    assert cell.status == "failed" and cell.calls == 0, (cell.status, cell.reason)
    assert "first reply fails its check" in cell.reason and "checked from node client-0" in cell.reason, cell.reason
