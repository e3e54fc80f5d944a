"""A real Redis for the predictions workloads: started on a free loopback port, seeded, stopped.

Unless the user points at one (--redis URL), the arena starts `redis-server`
(Debian package redis-server) with no persistence, loads the deterministic data
set (`dataset.py`), and stops it at the end, removing its folder. Servers learn the URL
as `serve --redis URL` (the arena's backing services pass it explicitly).
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

from rpcarena.errors import UnavailableError, UsageError
from rpcarena.orchestration import leftovers
from rpcarena.orchestration.children import Child, free_port
from rpcarena.seeds.predictions.dataset import dataset

READY_TIMEOUT_S = 20.0


def seed(url: str) -> int:
    """Write the predictions data set into the Redis at `url`; the number of keys written."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=10)
        pipe = client.pipeline(transaction=False)
        data = dataset()
        for key, scores in data.items():
            pipe.delete(key)
            pipe.hset(key, mapping={name: repr(value) for name, value in scores.items()})
        pipe.execute()
        client.close()
    except redis.RedisError as error:
        raise UsageError(f"cannot seed Redis at {url} ({error}): check --redis or drop it") from None
    return len(data)


class RedisStore:
    """A redis-server of our own, or the user's (which is only seeded, never stopped)."""

    def __init__(self, url: str | None = None, host: str = "127.0.0.1") -> None:
        self.url = url
        self.host = host
        self.child: Child | None = None
        self.folder: Path | None = None

    def __enter__(self) -> RedisStore:
        if self.url is None:
            self._start()
        seed(self.url)
        return self

    def _start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise UnavailableError("redis-server not found: apt-get install redis-server, or pass --redis URL")
        port = free_port(self.host)
        folder = self.folder = Path(tempfile.mkdtemp(prefix=f"rpcarena-{os.getpid()}-redis-"))  # the pid: see leftovers
        leftovers.register(f"folder {folder}", lambda: shutil.rmtree(folder, ignore_errors=True))
        argv = [binary, "--bind", self.host, "--port", str(port), "--save", "", "--appendonly", "no",
                "--dir", str(folder), "--protected-mode", "yes"]
        self.child = Child(argv, None, folder / "redis.log")
        self.url = f"redis://{self.host}:{port}/0"
        self._await_ready(port)

    def _await_ready(self, port: int) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.child is not None and not self.child.alive():
                raise UnavailableError(f"redis-server exited: {self.child.last_error_line()}")
            try:
                with socket.create_connection((self.host, port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise UnavailableError(f"redis-server did not answer on port {port} within {READY_TIMEOUT_S:.0f} s")

    def __exit__(self, *exc: object) -> None:
        if self.child is not None:
            self.child.stop()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            leftovers.release(f"folder {self.folder}")
