"""HTTP through a real HAProxy (--via) and servers across an emulated link (--link).

End to end against real servers: counts, bytes and verdicts, never a duration. That no call across
a link returns sooner than its round trip is measured by benchmarks/timing_claims.py (link); the
delay line's own calibration is delayline/calibration, run by make test.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

import psutil
import pytest

from rpcarena import contenders
from rpcarena.config import RunConfig
from rpcarena.network import link, proxy
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.report import export
from tests.conftest import popen_cli, server_of, wait_for

pytestmark = pytest.mark.serial  # across an emulated link: its delay line needs a CPU as it holds packets


def _need(reason: str | None) -> None:
    if reason and os.environ.get("CI") != "true":
        pytest.skip(reason)


def _need_link() -> None:
    _need(link.unavailable() or (None if shutil.which("nft") else "nft not found"))


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.startswith("rpcarena")}


@pytest.fixture
def census():
    """Asserts that the test leaves no namespace behind (its delay line goes with them). After a
    kill -9 of rpcarena, delaynet notices its closed stdin and tears down: allow it a moment."""
    before = _namespaces()
    yield
    wait_for(lambda: not _namespaces() - before, 30)


def test_http_through_haproxy_and_the_rest_unsupported_or_direct(tmp_path):
    _need(proxy.unavailable())
    http = ["rest-fastapi"] + [c for c in ("rest-go",) if contenders.get(c).unavailable() is None]
    config = RunConfig(contenders=http + ["tcp-raw", "grpc-py", "typed-json"], workloads=["infobip.items10"],
                       calls=50, warmup_s=0, via="haproxy", out=tmp_path / "r.json")
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    for cid in http:
        cell = cells[cid]
        assert cell.status == "ok" and cell.calls == 50 and cell.errors == {}, (cid, cell.reason, cell.errors)
        assert cell.via == "haproxy" and cell.link is None
        assert cell.wire_in_bytes and cell.wire_out_bytes and cell.payload_bytes_per_call > 0
    for cid in ("tcp-raw", "grpc-py"):
        assert cells[cid].status == "unsupported" and "proxies HTTP only" in cells[cid].reason
    direct = cells["typed-json"]
    assert direct.status == "ok" and direct.calls == 50 and direct.via == "direct" and "directly" in direct.reason
    assert list(tmp_path.glob("logs/*/cell-0000/proxy/haproxy.cfg"))


def test_a_link_keeps_exact_bytes_per_call_and_cleans_up(tmp_path, census):
    _need_link()
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], calls=200, warmup_s=0,
                       link="100mbit", out=tmp_path / "r.json")
    results = Arena(config, plans(config)).run()
    cell = results.cells[0]
    assert cell.status == "ok" and cell.calls == 200 and cell.link == "100mbit", cell.reason
    assert cell.payload_bytes_per_call == 2 * (4 + 5)  # length prefix + protobuf int32, each way
    assert results.link["bits_per_s"] == 100_000_000 and results.link["spec"] == "rate=100mbit"


def test_a_slow_link_carries_every_large_call(tmp_path, census):
    _need_link()
    config = RunConfig(contenders=["tcp-raw"], workloads=["hprpc.large8192"], calls=40, warmup_s=0,
                       link="20mbit", out=tmp_path / "r.json")
    cell = Arena(config, plans(config)).run().cells[0]
    assert cell.status == "ok" and cell.calls == 40 and cell.errors == {}, cell.reason
    for sent in (cell.wire_in_bytes, cell.wire_out_bytes):
        per_call = sent / cell.calls
        assert per_call > 8192 * 4  # a large payload each way


def test_a_round_trip_is_never_shorter_than_the_link_and_is_recorded(tmp_path, census):
    _need_link()
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], calls=20, warmup_s=0,
                       link="rtt=20ms,jitter=1ms", out=tmp_path / "r.json")
    results = Arena(config, plans(config)).run()
    cell = results.cells[0]
    assert cell.status == "ok" and cell.calls == 20, cell.reason
    assert cell.histogram.get_total_count() == 20  # how long each took: benchmarks/timing_claims.py (link)
    assert cell.link_rtt_ms is not None and cell.link_cpu_s is not None
    assert results.link["rtt_ms"] == 20 and results.link["delay_line_cpus"] == [1]


@pytest.mark.parametrize("rate", ["10mbit", "20mbit"])
def test_large_calls_serialized_at_a_slow_link_with_tcp_nodelay_are_not_nagle(tmp_path, census, rate):
    """A large call carries ~50 kB each way. At 20 Mbit/s both take about 40 ms to serialize, so the
    calls land one delayed-ACK timer above the round trip (95% of them, read once: a cell without the
    TCP_NODELAY reading was warned). With TCP_NODELAY on at both ends that is the link's rate, not
    Nagle, and no warning says otherwise."""
    _need_link()
    config = RunConfig(contenders=["tcp-raw"], workloads=["hprpc.large8192"], calls=20, warmup_s=0,
                       link=f"rtt=20ms,rate={rate}", out=tmp_path / "r.json")
    cell = Arena(config, plans(config)).run().cells[0]
    assert cell.status == "ok" and cell.calls == 20, cell.reason
    assert cell.tcp_nodelay == {"client": True, "server": True}, cell.tcp_nodelay
    assert "delayed-ack" not in [d.kind for d in export.cell_warnings(cell, cpus=2)]


def test_namespace_and_veth_are_gone_after_a_failed_cell(tmp_path, census):
    _need_link()
    config = RunConfig(contenders=["tcp-raw"], workloads=["hprpc.large8192"], calls=100_000, warmup_s=0,
                       link="1mbit", cell_timeout_s=1.0, out=tmp_path / "r.json")
    cell = Arena(config, plans(config)).run().cells[0]
    assert cell.status == "failed" and cell.reason


def test_a_bad_link_or_proxy_is_a_usage_error():
    from rpcarena.errors import UsageError

    for bad in ("fast", "rtt=40", "rtt=40ms,loss=150%", "jitter=4ms,speed=1", "rate=0mbit", ""):
        with pytest.raises(UsageError, match="--link"):
            RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], link=bad)
    with pytest.raises(UsageError, match="--via"):
        RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], via="nginx")


@pytest.mark.parametrize("text, rtt_ms, bits", [
    ("cloud-cross-region", 90, 100_000_000), ("lan", 0.3, 10**9), ("100mbit", 0, 10**8),
    ("rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000", 40, 10**8)])
def test_links_from_presets_rates_and_terms(text, rtt_ms, bits):
    model = link.parse(text)
    assert model.rtt_s * 1e3 == pytest.approx(rtt_ms) and model.bits_per_s == bits
    assert text not in link.PRESETS or model.preset == text


def test_infobip_network_claims_are_judged_from_the_network_part(tmp_path):
    from rpcarena.seeds import SUITES
    from rpcarena.suites import runner
    from rpcarena.suites.findings import findings
    from rpcarena.suites.vocabulary import NOT_COMPARABLE
    from tests.conftest import fake_arena

    suite = SUITES["infobip2016"]
    assert [p.link for p in suite.parts] == [None, "rtt=0.3ms,jitter=0.05ms,rate=100mbit"]
    assert suite.parts[1].via == "haproxy"
    doc = runner.run(suite, quick=True, repeat=None, out=tmp_path / "s.json", run_arena=fake_arena)
    found = {f.claim: f for f in findings(suite, doc, {})}
    network = [f for claim, f in found.items() if claim.startswith("Network")]
    assert len(network) == 3 and all(f.verdict != NOT_COMPARABLE for f in network[:2]), network


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_nothing_of_a_link_is_left_after_ctrl_c_or_kill_9(tmp_path, sig, census):
    """Ctrl-C closes the link on the way out; kill -9 closes delaynet's stdin, and it tears down."""
    _need_link()
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.int32", "--duration", "30s",
                    "--warmup", "0", "--link", "rtt=5ms", "--out", str(out))
    watched = psutil.Process(cli.pid)
    wait_for(lambda: server_of(watched, "tcp-raw"))
    assert _namespaces()  # the link is up while the cell runs (the census then waits for it to go)
    os.kill(cli.pid, sig)
    cli.communicate(timeout=60)
