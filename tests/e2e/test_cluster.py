"""--cluster: servers and clients on the nodes of a Dask cluster.

The end-to-end tests start one testbed for the module (rpcarena.cluster.testbed): a scheduler
and two client nodes' workers in the client namespace of an emulated 10 ms link, the server
node's worker in the server namespace (`ip netns exec`), so every measured call really crosses
the delay line between nodes. They assert counts, merges, reasons and what is left behind,
never a duration (a call across an emulated link: benchmarks/timing_claims.py link_floor). A census
after each test finds no serve or drive process on any node.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time

import psutil
import pytest

from rpcarena import cluster_spec, load
from rpcarena.cluster.cells import measured, plans
from rpcarena.cluster.reports import NodeReport, ServeReport
from rpcarena.cluster_spec import Node, Roles, assign
from rpcarena.config import RunConfig
from rpcarena.contract import DriveResult
from rpcarena.errors import UsageError
from rpcarena.network import link, wire
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.cell import cell_of
from rpcarena.process.server_process import Usage
from rpcarena.record import hist
from tests.conftest import command_of, descendants, popen_cli, wait_for

pytestmark = pytest.mark.serial  # timing-sensitive: a testbed's nodes across an emulated link

distributed = pytest.importorskip("distributed")

# --- what the user says ---------------------------------------------------------------------

def test_cluster_specs_parse_and_a_bad_one_says_the_forms():
    assert cluster_spec.parse("tcp://10.0.0.5:8786").address == "tcp://10.0.0.5:8786"
    assert cluster_spec.parse("10.0.0.5:8786").address == "tcp://10.0.0.5:8786"
    assert cluster_spec.parse("ssh:hostA,hostB").hosts == ("hostA", "hostB")
    assert cluster_spec.parse("local:3").workers == 3
    bed = cluster_spec.parse("netns:rtt=10ms,jitter=1ms,clients=2")
    assert (bed.kind, bed.link, bed.workers) == ("netns", "rtt=10ms,jitter=1ms", 2)
    for bad in ("local:1", "nowhere", "netns:rtt=fast", "netns:rtt=1ms,clients=0"):
        with pytest.raises(UsageError, match="--cluster|--link"):
            cluster_spec.parse(bad)


def test_cluster_options_are_checked_together():
    with pytest.raises(UsageError, match="drop --link"):
        RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], cluster="local:2", link="rtt=10ms")
    with pytest.raises(UsageError, match="add --cluster"):
        RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], server_node="server")


def _node(name: str, host: str, **resources: float) -> Node:
    return Node(f"tcp://{host}:4000{len(name)}", name, dict(resources))


def test_nodes_apart_by_default_and_by_address_name_host_or_resource():
    a, b, c = _node("a", "10.0.0.1"), _node("big", "10.0.0.2", server=1), _node("c3", "10.0.0.3", client=1)
    assert assign([a, b, c], None, None) == Roles(b, (c,))  # the resources say who serves and who drives
    assert assign([a, c], None, None) == Roles(a, (c,))  # else the first serves and every other drives
    assert assign([a, b, c], "10.0.0.3", ["a", b.address]) == Roles(c, (a, b))
    assert assign([a, b, c], "resource:client", ["resource:server", "big"]) == Roles(c, (b,))
    with pytest.raises(UsageError, match="one worker"):
        assign([a], None, None)  # never beside the server unless asked
    assert assign([a], None, ["a"]) == Roles(a, (a,))
    with pytest.raises(UsageError, match="--client-nodes 'z'.*a \\(tcp://10.0.0.1"):
        assign([a, b], None, ["z"])


# --- the merge, on one clock ------------------------------------------------------------------

def _result(latencies_us: list[int], start_ns: int) -> DriveResult:
    h = hist.new()
    for us in latencies_us:
        h.record_value(us * 1000)
    return DriveResult(calls=len(latencies_us), errors={"timeout": 1}, wall_s=1.0, cpu_user_s=0.5, cpu_sys_s=0.25,
                       histogram=hist.encode(h), samples=[[0, latencies_us[0] * 1000]], tool={"name": "t"},
                       start_mono_ns=start_ns, end_mono_ns=start_ns + 1_000_000_000)


def test_two_nodes_merge_into_one_cell_whose_calls_are_their_sum():
    """Node b's clock runs 5 s ahead of ours: its times are moved back before the merge, so the
    skew and the wall time are the real ones (2 ms and 1.002 s), not 5 s."""
    here = time.time_ns() - time.monotonic_ns()
    reports = [NodeReport("a", _result([100, 200, 300], 10_000_000), 2, False, 10_000_000, here, 0.001, 1.0, 1.0, [1]),
               NodeReport("b", _result([400, 500], 5_012_000_000), 1, False, 5_012_000_000, here, 0.002, 1.0, 1.1,
                          [1])]
    served = ServeReport("s", Usage(1.0, 0.5, 1.5123), wire.Count(10, 1, 20, 2), None, 1 << 20, 0.0, 1.0, [0])
    clocks = {"a": (0, 1000), "b": (5_000_000_000, 3000)}
    roles = Roles(_node("s", "10.0.0.9"), (_node("a", "10.0.0.1"), _node("b", "10.0.0.2")))
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.void"], clients=[2])
    m = measured(0.5, reports, served, clocks, roles, 0.01, "tcp://s:8786")
    cell = cell_of(plans(config)[0], config, "now", m)  # the arena's one way from a measurement to a cell
    nodes = cell.cluster["nodes"]
    assert cell.calls == nodes["a"]["calls"] + nodes["b"]["calls"] == 5
    assert cell.histogram.get_total_count() == 5 == sum(hist.decode(nodes[n]["histogram"]).get_total_count()
                                                         for n in ("a", "b"))
    assert cell.errors == {"timeout": 2} and cell.client_processes == 3
    assert cell.cluster["release_skew_us"] == cell.cluster["start_skew_us"] == 2000.0
    assert cell.wall_s == pytest.approx(1.002)
    assert cell.cluster["clock_uncertainty_us"] == 6.0
    assert cell.wire_in_bytes == 10 and cell.server_cpu_user_s == 1.0 and nodes["s"]["role"] == "server"
    assert cell.server_cpu_s == 1.5123 and cell.server_cpu_us_per_call == pytest.approx(1.5123e6 / 7)  # per call sent
    assert cell.setting == "s <- a,b"


# --- end to end, across an emulated link between nodes ------------------------------------------

def _need_testbed() -> None:
    reason = link.unavailable() or (None if shutil.which("nft") else "nft not found")
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


@pytest.fixture(scope="module")
def testbed(tmp_path_factory):
    _need_testbed()
    from rpcarena.cluster.testbed import Testbed

    with Testbed("rtt=10ms", 2, tmp_path_factory.mktemp("testbed")) as bed, _credentials(bed):
        yield bed


@contextlib.contextmanager
def _credentials(bed):
    """The testbed's TLS credentials for the tests' clients: in this process (Dask's configuration)
    and in the CLI's (its environment), as a user gives them."""
    import dask

    before = os.environ.copy()
    os.environ.update(bed.private.env())
    try:
        with dask.config.set(bed.private.config()):
            yield
    finally:
        os.environ.clear()
        os.environ.update(before)


def _left_on_nodes(bed) -> list[str]:
    """Every process still running under a node's worker (a server, a driver, anything)."""
    left = []
    for pid in bed.worker_pids():
        commands = (command_of(child) for child in descendants(psutil.Process(pid)))
        left += [" ".join(command.split()[:4]) for command in commands if command]
    return left


@pytest.fixture
def census(testbed):
    """After the test, nothing is left on any node (a cell's tasks let go within seconds)."""
    yield
    try:
        wait_for(lambda: not _left_on_nodes(testbed), 30)
    except AssertionError:
        raise AssertionError(f"left on the nodes: {_left_on_nodes(testbed)}") from None


def _config(testbed, tmp_path, contenders, **more) -> RunConfig:
    return RunConfig(contenders=contenders, workloads=["cs6650.word"], warmup_s=0.2, out=tmp_path / "r.json",
                     cluster=testbed.address, **more)


def test_two_client_nodes_drive_one_server_across_the_link(testbed, tmp_path, census):
    config = _config(testbed, tmp_path, ["grpc-go", "rest-fastapi"], clients=[2], calls=60)
    results = Arena(config, plans(config)).run()
    assert sorted(results.cluster["nodes"]) == ["client-0", "client-1", "server"]
    for facts in results.cluster["nodes"].values():
        assert facts["kernel"] and facts["cpu_model"] and facts["clock_source"] and facts["distributed"]
    assert all(q["profiler"] == "off" for q in results.cluster["quiet"]["workers"].values())
    for cell in results.cells:
        assert cell.status == "ok" and cell.errors == {}, (cell.contender, cell.reason)
        nodes = cell.cluster["nodes"]
        clients = [nodes["client-0"], nodes["client-1"]]
        assert cell.cluster["client_nodes"] == ["client-0", "client-1"] and nodes["server"]["role"] == "server"
        assert cell.calls == 60 == sum(n["calls"] for n in clients)
        assert cell.histogram.get_total_count() == 60
        for node in clients:
            node_hist = hist.decode(node["histogram"])
            assert node_hist.get_total_count() == node["calls"] > 0
            assert node["rtt_ms"] is not None and node["engine_cpu_s"] is not None
        assert cell.cluster["release_skew_us"] is not None and cell.cluster["clock_uncertainty_us"] == 0
        assert cell.wire_in_bytes and cell.wire_out_bytes  # counted on the server's node
        assert cell.server_cpu_user_s is not None and cell.server_peak_rss_bytes
        assert cell.server_cpu_s is not None and cell.server_cpu_s > 0  # to the nanosecond, on the server's node
        assert cell.placement["server_node"] == "server"
        # read on the nodes themselves: the server's sockets on its node, the drivers' on theirs
        assert cell.tcp_nodelay["server"] in (True, False) and cell.tcp_nodelay["client"] in (True, False)


def _drivers_on(bed, node_index: int) -> list[psutil.Process]:
    worker = psutil.Process(bed.worker_pids()[1 + node_index])
    return [p for p in descendants(worker) if "drive" in command_of(p)]


def test_a_killed_driver_fails_only_its_cell(testbed, tmp_path, census):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--cluster", testbed.address, "--contender", "rest-fastapi,grpc-go",
                    "--workload", "cs6650.word", "--clients", "2", "--calls", "600", "--warmup", "0.5s",
                    "--out", str(out))
    try:
        victim = wait_for(lambda: _drivers_on(testbed, 1), 60)[0]
        time.sleep(1.0)  # into the measured phase (600 calls across 10 ms take seconds)
        victim.kill()
        _, stderr = cli.communicate(timeout=240)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 1 and "1 cell(s) failed" in stderr, stderr
    failed, measured = load(out).cells
    assert failed.status == "failed" and failed.reason.startswith("on node client-1: client driver failed"), \
        failed.reason
    assert measured.status == "ok" and measured.calls == 600


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_ctrl_c_or_kill_9_leaves_nothing_on_any_node(testbed, tmp_path, census, sig):
    """Ctrl-C lets go of the cell's tasks on the way out; after kill -9 the scheduler sees the
    orchestrator's connection close and releases them: either way the census finds nothing."""
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--cluster", testbed.address, "--contender", "grpc-go", "--workload", "cs6650.word",
                    "--duration", "60s", "--warmup", "0.2s", "--out", str(out))
    try:
        wait_for(lambda: _drivers_on(testbed, 0), 60)
        time.sleep(0.5)
        os.kill(cli.pid, sig)
        _, stderr = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    if sig == signal.SIGINT:
        assert cli.returncode == 130 and "interrupted" in stderr, stderr
    with distributed.Client(testbed.address, timeout=10, set_as_default=False) as client:
        assert len(client.scheduler_info(n_workers=-1)["workers"]) == 3  # the nodes stay up for the next run


def test_a_lost_node_fails_its_cell_and_the_run_goes_on(tmp_path):
    """`local:2` (workers with nannies, no root needed): kill -9 the server's worker mid-cell; the
    cell fails with the reason, the nanny brings the node back, and the next cell runs on it."""
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--cluster", "local:2", "--contender", "tcp-raw", "--workload", "usp.int32,usp.void",
                    "--duration", "4s", "--warmup", "0.2s", "--out", str(out))
    try:
        def server_worker():
            for child in descendants(psutil.Process(cli.pid)):
                if "rpcarena.python_server.serve" in command_of(child):
                    with contextlib.suppress(psutil.NoSuchProcess):
                        return child.parent()
            return None
        worker = wait_for(server_worker, 120)
        time.sleep(1.0)
        worker.kill()
        seen = _everything_under(cli, 240)  # the scheduler, the nannies, the workers, servers, drivers
        _, stderr = cli.communicate(timeout=10)
    finally:
        if cli.poll() is None:
            cli.kill()
    lost, measured = load(out).cells
    assert lost.status == "failed" and "left the cluster" in lost.reason, (lost.reason, stderr)
    assert measured.status == "ok" and measured.calls > 0, measured.reason
    wait_for(lambda: not [p for p in seen if p.is_running() and p.status() != psutil.STATUS_ZOMBIE], 30)


def _everything_under(cli, timeout_s: float) -> list[psutil.Process]:
    """Every process the CLI ran below it until it ended."""
    seen: dict[int, psutil.Process] = {}
    deadline = time.monotonic() + timeout_s
    while cli.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(psutil.NoSuchProcess):
            seen.update((p.pid, p) for p in descendants(psutil.Process(cli.pid)))
        time.sleep(0.2)
    return list(seen.values())


def _heartbeats(client) -> dict[str, tuple[str, float]]:
    def timer(dask_worker):
        callback = dask_worker.periodic_callbacks["heartbeat"]
        return type(callback).__name__, callback.callback_time
    return client.run(timer)


def test_heartbeats_slowed_by_a_plugin_for_the_run_and_given_back(testbed, tmp_path):
    """Dask configured through its plugin API, not patched: the scheduler's heartbeat_interval is
    Dask's own, the workers' timers are slowed while the run is connected and restored after."""
    import distributed.scheduler

    from rpcarena.cluster.engine import Engine
    from rpcarena.cluster.heartbeat import HEARTBEAT_S

    with Engine(cluster_spec.parse(testbed.address), tmp_path) as engine:
        slowed = _heartbeats(engine.client)
        assert engine.client.run_on_scheduler(lambda: distributed.scheduler.heartbeat_interval(3)) == 0.5
        assert engine.quiet["heartbeat_s"] == HEARTBEAT_S
    assert len(slowed) == 3 and all(ms >= HEARTBEAT_S * 1000 for _, ms in slowed.values()), slowed
    with distributed.Client(testbed.address, timeout=10, set_as_default=False) as client:
        after = _heartbeats(client)
    assert all(kind == "PeriodicCallback" and ms < HEARTBEAT_S * 1000 for kind, ms in after.values()), after
