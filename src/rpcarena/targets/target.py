"""A target: an external server in the contender's place of an arena plan.

There is no process to start: the address is known, the server's pid is known
only when the user gives it (then its CPU time and peak RSS are measured as for
a contender's server). The requests are rendered before measuring and carried,
with the checks of each one, into the driver spec.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import psutil

from rpcarena import targets
from rpcarena.errors import ServerError, ThresholdFailed, UsageError
from rpcarena.process.server_process import NOT_MEASURED, Usage, peak_rss_bytes, process_usage
from rpcarena.targets import tls
from rpcarena.workloads import Workload

CONNECT_TIMEOUT_S = 3.0
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0", "::")


@dataclass(frozen=True)
class Target:
    """An external server and what to call on it (the subject of a target cell's `Plan`)."""

    id: str  # the name in the results and the table
    protocol: str  # grpc | http | rpyc
    address: str  # host:port the clients connect to
    method: str  # what the client calls: package.Service/Method, an HTTP method, an RPyC method name
    label: str  # the workload column: what is called, as the user wrote it
    description: dict[str, Any]  # what the Python client needs besides (address, method, timeout)
    requests: tuple[Any, ...]  # rendered before measuring; the clients cycle through them
    checks: tuple[Any, ...]  # for each request, its [path, value] JSON checks
    server_pid: int | None = None
    language: str = field(default="external", init=False)

    @cached_property
    def workload(self) -> Workload:
        """What the cell's workload column shows; the requests are the rendered ones. (What a reply
        must satisfy are the target's checks, which its runner gives the drivers.)"""
        return Workload(self.label, self.method, f"{self.protocol} target {self.address}",
                        lambda: list(self.requests))

    @property
    def host(self) -> str:
        return self.address.rpartition(":")[0].strip("[]")

    @property
    def port(self) -> int:
        return int(self.address.rpartition(":")[2])

    def client(self, timeout_s: float) -> Any:
        return targets.client_factory(self.description)(self.address, self.method, timeout_s)

    def server(self) -> ExternalServer:
        return ExternalServer(self)


class ExternalServer:
    """The `Server` side of a target's cell: nothing to start or stop, counters when the pid is known."""

    def __init__(self, target: Target) -> None:
        self.spec = target
        self._process = psutil.Process(target.server_pid) if target.server_pid else None

    @property
    def target(self) -> str:
        return self.spec.address

    @property
    def port(self) -> int | None:
        """The port whose packets are counted, when the server is on this host."""
        return self.spec.port if self.spec.host in LOCAL_HOSTS else None

    @property
    def pid(self) -> int | None:
        return self.spec.server_pid

    def start(self, port: int = 0) -> ExternalServer:
        reachable(self.spec)
        return self

    def alive(self) -> bool:
        return self._process is None or (self._process.is_running()
                                         and self._process.status() != psutil.STATUS_ZOMBIE)

    def died_message(self) -> str:
        return f"target {self.spec.id}: its server (pid {self.spec.server_pid}) exited during the measurement"

    def state(self) -> str | None:
        try:
            stopped = self._process is not None and self._process.status() == psutil.STATUS_STOPPED
        except psutil.Error:
            return None
        return "stopped" if stopped else None

    def usage(self) -> Usage:
        if self._process is None:
            return NOT_MEASURED
        try:
            return process_usage(self._process)
        except psutil.Error:
            raise ServerError(self.died_message()) from None

    def peak_rss_bytes(self) -> int | None:
        return peak_rss_bytes(self.spec.server_pid) if self.spec.server_pid else None

    def __enter__(self) -> ExternalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def reachable(target: Target) -> None:
    """A TCP connection to the target, or a one-line error saying it is down."""
    try:
        with socket.create_connection((target.host, target.port), timeout=CONNECT_TIMEOUT_S):
            return
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ServerError(f"target {target.id} at {target.address} is down ({reason}): "
                          f"start its server or fix --{target.protocol}") from None


def server_pid(text: str | None, address: str) -> int | None:
    """`--server-pid`: the live process that listens on the target's port, or None.

    A pid that does not own the listening socket would have its CPU and memory taken for the
    server's (a Redis behind it, a proxy in front): refused, naming the process that does listen."""
    if text is None:
        return None
    if not text.isdigit() or not 0 < int(text) < 2**31 or not psutil.pid_exists(int(text)):
        raise UsageError(f"bad --server-pid {text!r}: give the pid of the running server process")
    pid, port = int(text), int(address.rpartition(":")[2])
    try:
        ports = listening_ports(pid)
    except psutil.AccessDenied:
        raise UsageError(f"--server-pid {pid}: its sockets cannot be read by this user: run rpcarena as the "
                         "server's user (or root), or drop --server-pid") from None
    except psutil.NoSuchProcess:
        raise UsageError(f"bad --server-pid {pid}: the process exited; give the running server's pid") from None
    if port not in ports:
        raise UsageError(f"bad --server-pid {pid} ({_name(pid)}): it does not listen on port {port} of {address}"
                         f"{_listener(port)}: give the pid of the process that does, or drop --server-pid")
    return pid


def listening_ports(pid: int) -> set[int]:
    """The TCP ports a process holds a listening socket on (its /proc/PID/fd inodes in /proc/net/tcp*)."""
    conns = psutil.Process(pid).net_connections(kind="tcp")
    return {c.laddr.port for c in conns if c.status == psutil.CONN_LISTEN}


def _listener(port: int) -> str:
    """', where pid N (name) listens', when this user may see who listens on `port`."""
    try:
        pids = {c.pid for c in psutil.net_connections(kind="tcp")
                if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid}
    except psutil.AccessDenied:
        return ""
    if not pids:
        return " (no process of this machine that this user can see listens there)"
    return "; " + ", ".join(f"pid {p} ({_name(p)})" for p in sorted(pids)) + " does"


def _name(pid: int) -> str:
    try:
        return str(psutil.Process(pid).name())
    except psutil.Error:
        return "?"


def probe(target: Target, timeout_s: float, max_error_rate: float = 0.0) -> None:
    """Before measuring: every request prepares, and one real call answers and passes its checks
    (or fails in a way `--max-error-rate` allows: the measurement's gate judges the server then)."""
    reachable(target)
    try:
        client = target.client(timeout_s)
    except LookupError as error:  # the server is up but has no such method
        raise UsageError(f"target {target.id} at {target.address}: {_line(error)}: fix the method") from None
    except (OSError, EOFError) as error:
        raise ServerError(f"target {target.id} at {target.address}: cannot connect ({_line(error)}): "
                          f"start its server or fix --{target.protocol}") from None
    try:
        prepared = [client.prepare(r) for r in target.requests]
        _first_call(target, client, prepared[0], max_error_rate)
    finally:
        client.close()


def _first_call(target: Target, client: Any, request: Any, max_error_rate: float) -> None:
    try:
        reply = client.call(request)
    except Exception as error:  # a foreign client error: translated into one line below
        first_call_failed(target, client.classify(error), _line(client.describe(error)), max_error_rate)
        return
    want = client.expect(target.checks[0])
    if not client.same(reply, want):
        first_call_failed(target, WRONG_ANSWER, _line(client.explain(reply, want)), max_error_rate)


WRONG_ANSWER = "wrong_answer"
INPUT_KINDS = ("http_version", "status_unimplemented", "status_404", "status_405")  # a wrong method or URL
RUNTIME_KINDS = ("connection", "timeout")  # the server is down or slow: nothing to say about its answers


def first_call_failed(target: Target, kind: str, said: str, max_error_rate: float) -> None:
    """The one verdict on a failed first call, whichever client made it: a wrong request is bad input
    (exit 2), a server down or too slow a runtime error (1), and a server that answers wrong (a
    failed check, an unexpected status) fails the gate (3), unless --max-error-rate allows failed
    calls: then the measurement counts them and its gate judges the server."""
    tls_failure = tls.failure(said, target.description.get("tls"), kind) if kind != WRONG_ANSWER else None
    what = (f"target {target.id}: the first reply fails its check ({said})" if kind == WRONG_ANSWER
            else f"target {target.id}: the first call failed ({kind}: {said})")
    message = f"{what}; {tls_failure or _fix(target, kind)}"
    if tls_failure or kind in INPUT_KINDS:
        raise UsageError(message)
    if kind in RUNTIME_KINDS:
        raise ServerError(message)
    if max_error_rate > 0:
        return
    raise ThresholdFailed(f"{message} (--max-error-rate 0: every call must succeed)")


def _fix(target: Target, kind: str) -> str:
    if kind == "http_version":
        return "drop --http2, or serve HTTP/2 there"
    if kind == "timeout":
        return f"raise --timeout, or check the server at --{target.protocol}"
    if kind == "connection":
        return f"start its server or fix --{target.protocol}"
    if kind in ("status_unimplemented", "status_404", "status_405"):
        return "check the method or URL"
    if kind == WRONG_ANSWER:
        return "fix the server, or the check or the request if the server is right"
    return "fix the server, or the request (--data, --body, --args) or --expect-status if the server is right"


def _line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else type(value).__name__
