"""A cluster rpcarena starts is its own: TLS with the run's credentials, loopback only, no pages,
scratch space of its own; and a run's logs go nowhere a planted link points.

The cluster is a real `local:2` (Dask worker processes, no root needed); a client that lacks the
run's credentials is refused by the real scheduler. Counts and refusals are asserted, never a
duration.
"""

from __future__ import annotations

import os
import sys
import tempfile
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psutil
import pytest

from rpcarena.errors import UsageError
from rpcarena.orchestration import log_folder
from tests.conftest import run_cli

distributed = pytest.importorskip("distributed")
pytest.importorskip("cryptography")

QUICK_RUN = ("run", "--contender", "tcp-raw", "--workload", "usp.void", "--calls", "20", "--warmup", "0")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Dask's default scratch folder, in a temporary directory of the test's, is a link to a victim."""
    base = tmp_path_factory.mktemp("dask-tmp")
    victim = tmp_path_factory.mktemp("victim")
    (base / "dask-scratch-space").symlink_to(victim, target_is_directory=True)
    return base, victim


@pytest.fixture(scope="module")
def engine(planted, tmp_path_factory):
    import dask

    from rpcarena import cluster_spec as spec
    from rpcarena.cluster.engine import Engine

    with dask.config.set({"temporary-directory": str(planted[0])}), \
            Engine(spec.parse("local:2"), tmp_path_factory.mktemp("logs")) as started:
        yield started


def _listeners(pid: int) -> list[tuple[str, int]]:
    """Every listening TCP address of `pid` and its descendants."""
    processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    return [tuple(c.laddr) for p in processes for c in p.net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN]


def test_a_client_without_the_runs_credentials_is_refused(engine):
    from distributed.security import Security

    assert engine.address.startswith("tls://127.0.0.1:")
    plain = engine.address.replace("tls://", "tcp://")
    for address, security in ((plain, None), (engine.address, Security.temporary())):
        with pytest.raises((OSError, TimeoutError)):
            distributed.Client(address, timeout=3, security=security, set_as_default=False)
    assert len(engine.nodes()) == 2  # the run's own client is in


def test_the_cluster_listens_on_loopback_and_serves_no_pages(engine):
    listening = _listeners(os.getpid())
    assert len(listening) >= 5  # the scheduler, two nannies, two workers (and HTTP servers)
    assert {host for host, _ in listening} == {"127.0.0.1"}, listening
    port = engine.client.scheduler_info()["services"]["dashboard"]
    for page in ("/status", "/health", "/metrics", "/info/main/workers.html", "/json/identity.json"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=10)
        assert refused.value.code == 404, page


def test_dask_scratch_space_is_the_runs_own_and_a_planted_link_is_not_followed(engine, planted):
    folders = {path for info in engine.client.run(lambda dask_worker: dask_worker.local_directory).values()
               for path in [Path(info)]}
    assert len(folders) == 2
    for folder in folders:
        assert folder.parts[1:3] == (Path(tempfile.gettempdir()).name, folder.parts[2])
        assert folder.parts[2].startswith(f"rpcarena-{os.getpid()}-dask-"), folder
    _, victim = planted
    assert list(victim.iterdir()) == []


def test_the_private_folder_goes_with_the_cluster(tmp_path):
    from rpcarena.cluster.private import Private

    with Private() as private:
        folder = private.folder
        assert oct(folder.stat().st_mode & 0o777) == "0o700"
        assert {p.name for p in folder.iterdir()} == {"ca.pem", "cert.pem", "key.pem", "scratch"}
        assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in folder.glob("*.pem"))
    assert not folder.exists()


# --- what --cluster may say -------------------------------------------------------------------

def test_cluster_sizes_are_bounded_and_a_bad_port_is_said_at_once():
    from rpcarena.cluster_spec import MAX_NODES, parse

    assert parse(f"local:{MAX_NODES}").workers == MAX_NODES
    for bad in (f"local:{MAX_NODES + 1}", "local:1000000", f"netns:rtt=1ms,clients={MAX_NODES + 1}",
                "tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "tcp://:8786", "tls://127.0.0.1:x"):
        with pytest.raises(UsageError, match="bad --cluster"):
            parse(bad)


def test_plain_tcp_beyond_loopback_is_warned_of():
    from rpcarena.cluster_spec import exposure, parse

    assert "plain TCP" in (exposure(parse("tcp://10.0.0.5:8786")) or "")
    assert "plain TCP" in (exposure(parse("vm-a:8786")) or "")
    assert "SSHCluster speaks plain TCP" in (exposure(parse("ssh:vm-a,vm-b")) or "")  # no TLS through its JSON
    for safe in ("tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786", "tls://10.0.0.5:8786",
                 "local:2", "netns:rtt=1ms"):
        assert exposure(parse(safe)) is None, safe


def test_a_scheduler_that_is_not_there_is_one_line(tmp_path):
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        done = run_cli("run", "--cluster", f"tcp://127.0.0.1:{closed.getsockname()[1]}", *QUICK_RUN[1:],
                       "--out", str(tmp_path / "r.json"), timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "cannot reach the Dask scheduler" in done.stderr


# --- the run's log folder ----------------------------------------------------------------------

def test_a_logs_link_is_refused_and_nothing_outside_is_touched(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "logs").symlink_to(victim, target_is_directory=True)
    done = run_cli(*QUICK_RUN, "--out", str(tmp_path / "r.json"), timeout=120)
    assert done.returncode == 2, done.stderr
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert list(victim.iterdir()) == []


def test_a_link_planted_at_the_runs_log_folder_is_passed_over(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    logs = tmp_path / "out" / "logs"
    logs.mkdir(parents=True)
    now = datetime.now(timezone.utc)
    for second in range(-2, 120):  # every name the run could take in the next two minutes
        stamp = (now + timedelta(seconds=second)).strftime("%Y%m%dT%H%M%S")
        (logs / stamp).symlink_to(victim, target_is_directory=True)
    done = run_cli(*QUICK_RUN, "--out", str(tmp_path / "out" / "r.json"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(victim.iterdir()) == []
    made = [p for p in logs.iterdir() if not p.is_symlink()]
    assert len(made) == 1 and made[0].name.endswith("-2") and (made[0] / "cell-0000" / "server.log").is_file()


def test_a_logs_folder_others_can_write_is_refused(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    logs.chmod(0o777)
    with pytest.raises(UsageError, match="can be written by others"):
        log_folder.make(tmp_path / "r.json", "20261126T000000")
    assert list(logs.iterdir()) == []


def test_a_new_logs_folder_is_private_to_its_owner_whatever_the_umask(tmp_path):
    before = os.umask(0)
    try:
        folder = log_folder.make(tmp_path / "deep" / "r.json", "20261126T000000")
    finally:
        os.umask(before)
    assert folder == tmp_path / "deep" / "logs" / "20261126T000000"
    assert oct(folder.parent.stat().st_mode & 0o777) == oct(folder.stat().st_mode & 0o777) == "0o755"
    assert log_folder.make(tmp_path / "deep" / "r.json", "20261126T000000").name == "20261126T000000-2"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
