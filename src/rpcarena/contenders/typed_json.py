"""typed-json: MML's protocol (infobip2016); typed JSON, multiplexed, balanced by the client.

Server: the process rpcarena starts is a small supervisor. It binds and listens
on host:port itself, then forks WORKERS server processes that inherit that one
listening socket and each accept from it (so the kernel's byte counters on the
port see every call, and, without SO_REUSEPORT, no other process can bind the
port and take a share of its connections), and announces the port with the
workers' pids. A worker that dies is reported on stderr; the others go on
accepting; the supervisor exits when none is left.

Client: every client of one driver process shares one `Cluster`: one
persistent connection per server process (found by asking each new connection
for its pid), each multiplexed (call ids, replies matched by id in any order).
Calls go round-robin over the live connections. When a connection dies, every
call in flight on it is retried once on each other live server process before
it counts as a `connection` error: no call is lost silently, and
`TypedJsonClient.retries` counts the calls that needed a retry.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from rpcarena.codec import frames
from rpcarena.codec import typed_json as tj
from rpcarena.contenders.base import Client, PythonContender
from rpcarena.errors import ServerError
from rpcarena.protocol import replies, schema, semantics
from rpcarena.userschema import features, served
from rpcarena.userschema.served import Served

WORKERS = int(os.environ.get("RPCARENA_TYPED_JSON_WORKERS", "2"))
CALL, RESULT, HELLO = "arena.Call", "arena.Result", "arena.Hello"


def handle(kind: int, body: bytes, user: Served | None = None) -> tuple[int, bytes]:
    """One call frame: (status, typed reply); a bad call is an error reply, never a crash. `user`: the
    method of the user's schema this server answers too (`rpcarena run --proto`)."""
    try:
        envelope = tj.loads(body)
        if not isinstance(envelope, dict) or envelope.get(tj.TYPE) != CALL:
            raise tj.DecodeError(f"a call is an object of @type {CALL!r}")
        name = envelope.get("method")
        if name == "@hello":
            return frames.OK, tj.dumps({tj.TYPE: HELLO, "pid": os.getpid(), "workers": WORKERS})
        info = schema.methods().get(name) if isinstance(name, str) else None
        if info is None or info.streaming:
            return frames.UNKNOWN_METHOD, f"no unary method {str(name)[:80]!r}".encode()
        request = tj.from_typed(tj.descriptor(info.request), envelope.get("arg"))
    except tj.DecodeError as error:
        return frames.BAD_REQUEST, str(error).encode()
    return _respond(info, request, user.answer_canonical if user and info.user else None)


def _respond(info: schema.Method, request: dict[str, Any],
             answer: Callable[[dict[str, Any]], dict[str, Any]] | None) -> tuple[int, bytes]:
    try:
        reply = answer(request) if answer else semantics.respond(info.name, request)
        return frames.OK, tj.dumps({tj.TYPE: RESULT, "value": tj.to_typed(tj.descriptor(info.response), reply)})
    except semantics.Refused as refusal:  # the cap keeps every reply well inside one frame
        return frames.BAD_REQUEST, str(refusal).encode()
    except (ValueError, TypeError, OverflowError) as error:
        return frames.INTERNAL, str(error).encode()


def call_body(method: str, typed_arg: dict[str, Any]) -> bytes:
    return tj.dumps({tj.TYPE: CALL, "method": method, "arg": typed_arg})


# What typed JSON cannot carry of a user's schema, and why (`userschema.features`).
_LACKS = {"extension": "a typed object holds its message's own fields by name; an extension is declared "
                       "outside the message, and has no name in it"}


class TypedJson(PythonContender):
    id = "typed-json"
    protocol = "typed-json"
    description = f"typed JSON over multiplexed TCP; {WORKERS} server processes, client-side balancing"

    def unsupported(self, method: str) -> str | None:
        if schema.methods()[method].streaming:
            return "typed-json calls are unary; streaming is not implemented"
        return super().unsupported(method)

    def user_unsupported(self, method: schema.Method) -> str | None:
        """Its types are read from the user's descriptors (`codec.typed_json.descriptor`): bytes as
        base64 strings, enums as numbers, maps as objects, the well-known types in their proto JSON
        forms (`codec.typed_json`): any schema but one whose messages are extended."""
        return features.why(method, _LACKS)

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            listener = frames.listen(host, port)
        except OSError as error:
            raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
        port = listener.getsockname()[1]
        user = served.of(services)  # loaded and calibrated once, before the workers fork
        workers = [_fork_worker(listener, functools.partial(handle, user=user)) for _ in range(WORKERS)]
        listener.close()  # the workers hold it: when the last one is gone, so is the port
        sys.stdout.write(json.dumps({"event": "ready", "port": port, "pid": os.getpid(), "contract": 1,
                                     "workers": workers}) + "\n")
        sys.stdout.flush()
        _supervise(set(workers))


def _fork_worker(listener: socket.socket, handler: frames.Handler) -> int:
    pid = os.fork()
    if pid == 0:  # the worker: never returns into the supervisor's code
        code = 1
        try:
            _worker(listener, handler)
        except BaseException as error:  # report and leave; the supervisor logs the exit
            print(f"typed-json worker {os.getpid()}: {error}", file=sys.stderr)
        finally:
            os._exit(code)
    return pid


def _worker(listener: socket.socket, handler: frames.Handler) -> None:
    """Accept from the inherited listener until the supervisor is gone."""
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    parent = os.getppid()
    threading.Thread(target=frames.serve_forever, args=(listener, handler), daemon=True).start()
    while os.getppid() == parent:  # the supervisor is gone: so is this worker
        time.sleep(0.5)


def _supervise(workers: set[int]) -> None:
    while workers:
        pid, status = os.wait()
        if pid in workers:
            workers.discard(pid)
            print(f"typed-json worker {pid} exited (status {status}); {len(workers)} left", file=sys.stderr)
    raise ServerError("every typed-json worker died: see the lines above in the server log")


class _Pending:
    __slots__ = ("done", "result", "error")

    def __init__(self) -> None:
        self.done = threading.Lock()
        self.done.acquire()
        self.result: tuple[int, bytes] | None = None
        self.error: BaseException | None = None


class Link:
    """One multiplexed connection to one server process; a reader thread matches replies by id."""

    def __init__(self, address: tuple[str, int], timeout_s: float) -> None:
        self.sock = socket.create_connection(address, timeout=timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(None)  # the reader blocks; each call has its own deadline
        self.alive = True
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.pid = self._hello(timeout_s)

    def _hello(self, timeout_s: float) -> int:
        status, body = self.call(tj.dumps({tj.TYPE: CALL, "method": "@hello"}), timeout_s)
        reply = tj.loads(body)
        if status != frames.OK or not isinstance(reply, dict) or reply.get(tj.TYPE) != HELLO:
            raise ConnectionError("the server did not answer the typed-json hello")
        self.workers = int(reply.get("workers", 1))
        return int(reply["pid"])

    def call(self, body: bytes, timeout_s: float) -> tuple[int, bytes]:
        pending, call_id = _Pending(), next(self._ids) & 0xFFFFFFFF
        with self._lock:
            if not self.alive:
                raise ConnectionError("connection to the server process is closed")
            self._pending[call_id] = pending
            try:
                self.sock.sendall(frames.pack(call_id, 0, body))
            except OSError as error:
                self._fail(error)
                raise ConnectionError(f"send failed ({error})") from None
        if not pending.done.acquire(timeout=timeout_s):
            with self._lock:
                self._pending.pop(call_id, None)
            raise TimeoutError(f"no reply within {timeout_s} s")
        if pending.error is not None:
            raise ConnectionError(str(pending.error))
        assert pending.result is not None  # the reader sets the result or the error before it releases `done`
        return pending.result

    def _read(self) -> None:
        reader = frames.buffered_reader(self.sock)
        try:
            while True:
                call_id, status, body = frames.read_frame(reader)
                with self._lock:
                    pending = self._pending.pop(call_id, None)
                if pending is not None:  # None: a call that already timed out
                    pending.result = (status, body)
                    pending.done.release()
        except OSError as error:
            with self._lock:
                self._fail(error)

    def _fail(self, error: BaseException) -> None:
        """Mark dead and fail every call in flight (called with the lock held)."""
        self.alive = False
        for pending in self._pending.values():
            pending.error = error if str(error) else ConnectionError("connection closed by peer")
            pending.done.release()
        self._pending.clear()

    def close(self) -> None:
        with self._lock:
            self.alive = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class Cluster:
    """Every server process behind one address, one Link each, called round-robin."""

    def __init__(self, target: str, timeout_s: float) -> None:
        host, _, port = target.rpartition(":")
        self.address = (host.strip("[]"), int(port))
        self.timeout_s = timeout_s
        self.links: list[Link] = []
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self.users = 0
        self.discover()

    def discover(self, attempts: int = 16) -> None:
        """Connect until every server process has a link (the kernel spreads new connections)."""
        seen = {link.pid for link in self.links if link.alive}
        for _ in range(attempts):
            if self.links and len(seen) >= max(link.workers for link in self.links):
                break
            try:
                link = Link(self.address, self.timeout_s)
            except OSError:
                continue
            if link.pid in seen:
                link.close()
                continue
            seen.add(link.pid)
            self.links.append(link)

    def pick(self, tried: set[int]) -> Link | None:
        live = [link for link in self.links if link.alive and id(link) not in tried]
        if not live:
            with self._lock:
                self.links = [link for link in self.links if link.alive]
                self.discover(attempts=2)
            live = [link for link in self.links if link.alive and id(link) not in tried]
        return live[next(self._turn) % len(live)] if live else None

    def close(self) -> None:
        for link in self.links:
            link.close()


_CLUSTERS: dict[str, Cluster] = {}
_CLUSTERS_LOCK = threading.Lock()


def _join(target: str, timeout_s: float) -> Cluster:
    with _CLUSTERS_LOCK:
        cluster = _CLUSTERS.get(target)
        if cluster is None:
            cluster = _CLUSTERS[target] = Cluster(target, timeout_s)
        cluster.users += 1
        return cluster


def _leave(target: str) -> None:
    with _CLUSTERS_LOCK:
        cluster = _CLUSTERS.get(target)
        if cluster is not None:
            cluster.users -= 1
            if cluster.users == 0:
                cluster.close()
                del _CLUSTERS[target]


class TypedJsonClient(Client):
    """Calls through the driver process's shared Cluster; retries a call lost with its server."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        info = schema.methods()[method]
        self._request, self._response = tj.descriptor(info.request), tj.descriptor(info.response)
        self._cluster = _join(target, timeout_s)
        self.retries = 0

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        body = call_body(self.method, tj.to_typed(self._request, request))
        tried: set[int] = set()
        while True:
            link = self._cluster.pick(tried)
            if link is None:
                raise ConnectionError("no typed-json server process is left to take the call")
            try:
                status, reply = link.call(body, self.timeout_s)
            except ConnectionError:
                self.retries += not tried
                tried.add(id(link))
                continue
            return self._result(status, reply)

    def _result(self, status: int, reply: bytes) -> dict[str, Any]:
        if status != frames.OK:
            raise frames.RemoteError(status, reply.decode(errors="replace"))
        envelope = tj.loads(reply)
        if not isinstance(envelope, dict) or envelope.get(tj.TYPE) != RESULT:
            raise tj.DecodeError(f"a reply is an object of @type {RESULT!r}")
        return tj.from_typed(self._response, envelope.get("value"))

    def matches(self, got: Any, want: Any) -> bool:
        return got == want or replies.equivalent(got, want)

    def classify(self, error: BaseException) -> str:
        if isinstance(error, frames.RemoteError):
            return error.kind
        return super().classify(error)

    def close(self) -> None:
        _leave(self.target)
