"""The connection to Dask: one per run, opened with the run's context and closed on every way out.

`--cluster` names a running scheduler, or a cluster rpcarena starts for the run (SSH hosts,
local worker processes, or the emulated link of `testbed`) and stops at its end. A cluster started
here (`local:N`, `netns:`) speaks TLS with credentials made for the run (`private`), listens on
loopback or inside its namespaces only, and serves no dashboard. On connecting,
every worker and the scheduler are made quiet (the statistical profiler off, housekeeping and
heartbeats slowed: `tasks.quiet_worker`, `heartbeat`), and each node is described (machine, kernel, clock
source, versions, toolchains) for the results. Tasks are placed on a named worker only
(`workers=[address]`, `allow_other_workers=False`): a cell never runs where it was not put.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import logging
import os
import socket
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rpcarena.cluster import channel, tasks
from rpcarena.cluster.private import Private
from rpcarena.cluster.quiet import CLOSED_CONFIG, QUIET_CONFIG
from rpcarena.cluster.testbed import Testbed
from rpcarena.cluster_spec import ClusterSpec, Node
from rpcarena.errors import UsageError

CONNECT_TIMEOUT_S = 5.0  # a scheduler that is there answers at once; one that is not is said so soon
DEFAULT_PORT = 8786  # Dask's, when the address gives none
CLOCK_PROBES = 5
NODE_CHECK_S = 2.0  # how often a waiting cell asks the scheduler which workers are still there

class Engine:
    """A run's Dask client, its nodes, and what it started (closed on every way out)."""

    def __init__(self, spec: ClusterSpec, logs: Path) -> None:
        self.spec = spec
        self.logs = logs
        self.run_id = uuid.uuid4().hex[:12]
        self.client: Any = None
        self.queue: Any = None
        self.address = ""
        self.security: Any = None  # the run's credentials for a cluster started here; else Dask's config
        self.quiet: dict[str, Any] = {}
        self.facts: dict[str, Any] = {}
        self._stack = contextlib.ExitStack()
        self._nodes_checked = (0.0, frozenset[str]())
        self._link: Any = None  # netns: the testbed's emulated link, watched while cells run

    def __enter__(self) -> Engine:
        if self.spec.kind == "scheduler":
            _reachable(self.spec.address)  # before Dask's import, which takes seconds
        try:
            import distributed
        except ImportError:
            raise UsageError("--cluster needs Dask: pip install 'rpcarena[cluster]' (make setup installs it)") from None
        try:
            self._stack.enter_context(_dask_logs_to(self.logs / "dask.log"))  # closed last: shutdown's lines too
            self.address = self._start()
            self.client = self._connect(distributed)
            self.queue = distributed.Queue(channel.queue_name(self.run_id), client=self.client)
            self.quiet = self._make_quiet()
            self.facts = self.client.run(tasks.node_facts)
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):  # Ctrl-C, SIGTERM, SIGHUP: the CLI says it, in one line
                _abandon_half_started()
            self._stack.close()
            raise
        return self

    def _start(self) -> str:
        """The scheduler's address: the given one, or that of a cluster started for this run."""
        if self.spec.kind == "scheduler":
            return self.spec.address
        import dask

        self._stack.enter_context(dask.config.set({**QUIET_CONFIG, **CLOSED_CONFIG}))
        if self.spec.kind == "local":
            cluster = self._local_cluster()
        elif self.spec.kind == "ssh":
            cluster = _ssh_cluster(self.spec.hosts)
        else:
            bed = self._stack.enter_context(Testbed(self.spec.link, self.spec.workers, self.logs))
            self.security = bed.private.security
            self._link = bed.link
            return bed.address
        self._stack.callback(cluster.close)
        return str(cluster.scheduler_address)

    def _local_cluster(self) -> Any:
        """Worker processes here, on loopback, speaking TLS with the run's credentials, their
        scratch space in the run's private folder, their log lines in the run's log folder."""
        import dask

        private = self._stack.enter_context(Private())
        self.security = private.security
        quiet_resource_tracker()
        # The scheduler's own folder too (it runs in this process), never Dask's shared /tmp one.
        self._stack.enter_context(dask.config.set({"temporary-directory": str(private.scratch)}))
        with _worker_logs_to(self.logs / "workers.log"):
            return self._spawn_local(private)

    def _spawn_local(self, private: Private) -> Any:
        from distributed import LocalCluster

        return LocalCluster(n_workers=self.spec.workers, threads_per_worker=2, processes=True, host="127.0.0.1",
                            protocol="tls://", security=private.security, dashboard_address=None,
                            local_directory=str(private.scratch),
                            # Dask's HTTP server (no pages: CLOSED_CONFIG) on a free port, not 8787
                            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})

    def _connect(self, distributed: Any) -> Any:
        if self.security is None and self.address.startswith("tls://"):
            _need_tls_config(self.address)
        try:
            client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT_S, set_as_default=False,
                                        direct_to_workers=False, security=self.security)
        except (OSError, TimeoutError) as error:
            raise UsageError(f"cannot reach the Dask scheduler at {self.address} ({error}): is it running, "
                             "and reachable from here?") from None
        except Exception as error:  # noqa: BLE001 - whatever answered is no Dask scheduler we can speak to
            raise UsageError(f"no Dask scheduler answered at {self.address} ({type(error).__name__}): is the "
                             "address a Dask scheduler's, with its scheme (tcp:// or tls://)?") from None
        self._stack.callback(client.close)
        return client

    def _make_quiet(self) -> dict[str, Any]:
        from rpcarena.cluster.heartbeat import HEARTBEAT_S, NAME, SlowHeartbeat

        self.client.register_plugin(SlowHeartbeat(), name=NAME)  # every worker, and one that joins later
        if self.spec.kind == "scheduler":  # a cluster the user keeps gets its heartbeat back; one started
            self._stack.callback(self._unregister, NAME)  # here ends (asking a cut-off node waited 30 s)
        quiet: dict[str, Any] = {"workers": self.client.run(tasks.quiet_worker), "heartbeat_s": HEARTBEAT_S}
        try:
            quiet["scheduler"] = self.client.run_on_scheduler(tasks.quiet_scheduler)
        except Exception as error:  # whatever it was, it is recorded and the run goes on
            quiet["scheduler"] = f"not quieted ({type(error).__name__}: {error}); install rpcarena beside it"
        return quiet

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _unregister(self, name: str) -> None:
        with contextlib.suppress(Exception):  # the connection may be gone already (Ctrl-C, a lost scheduler)
            self.client.unregister_worker_plugin(name)

    def lost(self) -> str | None:
        """Why the cluster's emulated link is gone (netns: its delay line died), or None."""
        return self._link.lost() if self._link is not None else None

    def nodes(self) -> list[Node]:
        """The workers now, as the scheduler knows them."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return [Node(address, str(info.get("name", address)), dict(info.get("resources") or {}),
                     int(info.get("nthreads", 1)), str(self.facts.get(address, {}).get("hostname", "")))
                for address, info in workers.items()]

    def present(self, wanted: frozenset[str], fresh: bool = False) -> frozenset[str]:
        """The workers' addresses, asked of the scheduler at most every NODE_CHECK_S, and at once
        when one of `wanted` is not among them (a worker a nanny restarted after the last answer
        has a new address, which an old answer would call lost) or when `fresh` is asked."""
        checked, addresses = self._nodes_checked
        if fresh or time.monotonic() - checked > NODE_CHECK_S or not wanted <= addresses:
            addresses = frozenset(n.address for n in self.nodes())
            self._nodes_checked = (time.monotonic(), addresses)
        return addresses

    def submit(self, function: Any, job: Any, node: Node) -> Any:
        """`function(job)` on `node` only; never retried elsewhere."""
        return self.client.submit(function, job, workers=[node.address], allow_other_workers=False, pure=False,
                                  retries=0, key=f"rpcarena-{function.__name__}-{job.cell}-{job.node}")

    def cancel(self, futures: list[Any]) -> None:
        with contextlib.suppress(Exception):  # the connection may be gone already (Ctrl-C, a lost scheduler)
            self.client.cancel(futures, force=True)

    def clock_offset(self, node: Node) -> tuple[int, int]:
        """(offset, uncertainty) in ns of the node's wall clock against ours (Cristian's method:
        the probe with the shortest round trip; the uncertainty is half of it)."""
        facts = self.facts.get(node.address, {})
        if facts.get("boot_id") and facts.get("boot_id") == tasks.boot_id():
            return 0, 0  # one kernel: the very same clocks (network namespaces do not change them)
        best: tuple[int, int] | None = None
        for _ in range(CLOCK_PROBES):
            sent = time.time_ns()
            remote = self.client.run(tasks.now_ns, workers=[node.address])[node.address]
            back = time.time_ns()
            probe = (remote - (sent + back) // 2, (back - sent) // 2)
            best = probe if best is None or probe[1] < best[1] else best
        assert best is not None
        return best

    def scheduler_cpu_s(self) -> float | None:
        try:
            return float(self.client.run_on_scheduler(tasks.process_cpu_s))
        except Exception:  # e.g. no rpcarena beside the scheduler: not measured, never zero
            return None

    def describe(self) -> dict[str, Any]:
        """The cluster as the results record it: how it was given, the engine's quiet, each node."""
        return {"spec": self.spec.text, "scheduler": self.address, "quiet": self.quiet,
                "nodes": {facts["worker"]["name"]: facts for facts in self.facts.values()}}


LOG_FORMAT = "%(asctime)s - %(name)s - %(levelname)s - %(message)s"


@contextlib.contextmanager
def _worker_logs_to(path: Path) -> Iterator[None]:
    """A local cluster's worker processes, spawned while this is open, log into `path`: a fresh
    interpreter reads Dask's logging configuration from its environment when it imports Dask."""
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {"version": 1, "disable_existing_loggers": False, "formatters": {"plain": {"format": LOG_FORMAT}},
              "handlers": {"file": {"class": "logging.FileHandler", "filename": str(path), "formatter": "plain"}},
              "loggers": {name: {"handlers": ["file"], "level": "INFO", "propagate": False}
                          for name in ("distributed", "asyncio")}}
    before = os.environ.get(LOGGING_ENV)
    os.environ[LOGGING_ENV] = repr(config)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(LOGGING_ENV, None)
        else:
            os.environ[LOGGING_ENV] = before


LOGGING_ENV = "DASK_LOGGING"


@contextlib.contextmanager
def _dask_logs_to(path: Path) -> Iterator[None]:
    """Dask's own log lines from this process (a local cluster's scheduler runs here, and logs a
    traceback for each poll of the cells' queue that times out: four or more a run) go to the run's
    log folder, not stderr, while the engine is open: `-q` on a clean run prints nothing."""
    logger = logging.getLogger("distributed")
    before = (logger.handlers[:], logger.propagate)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, delay=True)  # in the run's new folder, where no link is planted
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logger.handlers, logger.propagate = [handler], False
    try:
        yield
    finally:
        logger.handlers, logger.propagate = before
        handler.close()


def _stderr_kept_from_children() -> None:
    """From now on, a process this one starts (a nanny still starting a worker: under load, one more
    after the kill below) writes its stderr nowhere, where it would print the traceback of a start
    whose semaphore our exit unlinked; this process's own lines (`sys.stderr`: the CLI's one line)
    still reach the terminal, through a copy of the descriptor that no child inherits."""
    try:
        if sys.stderr.fileno() != 2:
            return
    except (AttributeError, OSError, ValueError):  # a test's captured stderr: no descriptor to keep
        return
    sys.stderr.flush()
    kept = os.dup(2)
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, 2)
    os.close(nowhere)
    sys.stderr = os.fdopen(kept, "w", encoding=sys.stderr.encoding, errors=sys.stderr.errors, buffering=1)


# multiprocessing's resource tracker's warning at exit, of the semaphores it then unlinks itself
TRACKER_WARNING = "ignore::UserWarning:multiprocessing.resource_tracker"


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (a process of its own, otherwise started with the first
    semaphore, the LocalCluster's) with its warning at exit ignored: a stop signal that cuts the cluster's
    start short leaves its nannies' semaphores registered, and the tracker, which then unlinks them,
    first warned on the terminal's stderr ("There appear to be 6 leaked semaphore objects to clean up at
    shutdown"), two lines after the CLI's one. Its interpreter takes our -W options (sys.warnoptions)."""
    from multiprocessing import resource_tracker

    sys.warnoptions.append(TRACKER_WARNING)
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(TRACKER_WARNING)


def _abandon_half_started() -> None:
    """A stop signal mid-start leaves Dask's objects half made; at exit, Dask's own hooks would try
    to close them and print tracebacks (seven, for a LocalCluster). Their processes end with this
    one (they are its children), and what rpcarena made is removed by its own stack: Dask is let go
    of quietly. Its worker processes that are still starting are ended first: left to our exit, a
    child still unpickling its start finds its semaphore unlinked by our exit and prints a
    traceback, and the nanny that waited for it logs one more ("Task exception was never
    retrieved", through asyncio's logger)."""
    import multiprocessing

    from distributed.deploy import spec as dask_spec

    for name in ("distributed", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    atexit.unregister(dask_spec.close_clusters)
    _stderr_kept_from_children()  # before the listing: a worker its nanny starts after it is not listed
    children = multiprocessing.active_children()  # a LocalCluster's workers, spawned by its nannies
    for child in children:
        with contextlib.suppress(Exception):  # it may have ended between the listing and the kill
            child.kill()
    for child in children:
        child.join(timeout=2.0)


def _need_tls_config(address: str) -> None:
    """A tls:// scheduler the user started needs the user's certificates, which Dask reads from its
    configuration; without them Dask fails deep inside with a TypeError (and more at exit)."""
    import dask

    wanted = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")
    if not all(dask.config.get(key, None) for key in wanted):
        raise UsageError(f"--cluster {address}: no TLS credentials for the scheduler: export "
                         "DASK_DISTRIBUTED__COMM__TLS__CA_FILE=ca.pem "
                         "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=cert.pem "
                         "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=key.pem (docs/cluster.md)")


def _reachable(address: str) -> None:
    """A refused or silent port is said at once, before Dask's client retries it for its timeout."""
    parts = urlsplit(address)
    if parts.scheme not in ("tcp", "tls") or parts.hostname is None:
        return
    try:
        socket.create_connection((parts.hostname, parts.port or DEFAULT_PORT), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        raise UsageError(f"cannot reach the Dask scheduler at {address} ({error.strerror or error}): is it "
                         "running, and reachable from here?") from None


def _ssh_cluster(hosts: tuple[str, ...]) -> Any:
    if importlib.util.find_spec("asyncssh") is None:  # SSHCluster needs it: say so before it fails deeper
        raise UsageError("--cluster ssh:... needs asyncssh: pip install asyncssh")
    from distributed import SSHCluster
    # The scheduler on the first host, one worker on each host; names are the hosts.
    return SSHCluster([hosts[0], *hosts], connect_options={"known_hosts": None},
                      worker_options={"nthreads": 2}, scheduler_options={"port": 0, "dashboard": False})
