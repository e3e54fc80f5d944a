"""A real Redis for the predictions workloads: started on a free loopback port, seeded, stopped.

Unless the user points at one (--redis URL), the arena starts `redis-server`
(Debian package redis-server) with no persistence, loads the deterministic data
set (`dataset.py`), and stops it at the end, removing its folder. Servers learn the URL
as `serve --redis URL` (the arena's backing services pass it explicitly).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rpcarena.errors import UnavailableError, UsageError
from rpcarena.process import leftovers
from rpcarena.process.children import Child, free_port
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
    """A redis-server of our own, or the user's (which is only seeded, never stopped).

    Across an emulated link the servers run in a network namespace of their own: then the
    Redis runs there too, beside them as on the seed's server host (`prefix`: `ip netns exec
    NS`), on that namespace's loopback, and is probed and seeded from inside it.
    """

    def __init__(self, url: str | None = None, host: str = "127.0.0.1", prefix: list[str] | None = None) -> None:
        self.url = url
        self.host = host
        self.prefix = prefix or []
        self.child: Child | None = None
        self.folder: Path | None = None

    def __enter__(self) -> RedisStore:
        if self.url is not None and self.prefix:
            raise UnavailableError("across --link the servers cannot reach --redis: drop it, and rpcarena "
                                   "starts a Redis beside the servers")
        if self.url is None:
            self._start()
        assert self.url is not None
        self._seed(self.url)
        return self

    def _seed(self, url: str) -> None:
        if not self.prefix:
            seed(url)
            return
        done = subprocess.run([*self.prefix, sys.executable, "-m", "rpcarena.seeds.predictions.store", url],
                              capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise UnavailableError(f"cannot seed the Redis beside the servers: {done.stderr.strip()[-200:]}")

    def _start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise UnavailableError("redis-server not found: apt-get install redis-server, or pass --redis URL")
        port = free_port(self.host)
        folder = self.folder = Path(tempfile.mkdtemp(prefix=leftovers.name("folder", "redis", "")))
        leftovers.register(f"folder {folder}", lambda: shutil.rmtree(folder, ignore_errors=True))
        argv = [binary, "--bind", self.host, "--port", str(port), "--save", "", "--appendonly", "no",
                "--dir", str(folder), "--protected-mode", "yes"]
        self.child = Child([*self.prefix, *argv], None, folder / "redis.log")
        self.url = f"redis://{self.host}:{port}/0"
        self._await_ready(port)

    def _await_ready(self, port: int) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.child is not None and not self.child.alive():
                raise UnavailableError(f"redis-server exited: {self.child.last_error_line()}")
            if self._pong(port):
                return
            time.sleep(0.05)
        raise UnavailableError(f"redis-server did not answer on port {port} within {READY_TIMEOUT_S:.0f} s")

    def _pong(self, port: int) -> bool:
        if self.prefix:  # in the servers' namespace: ask from inside it
            done = subprocess.run([*self.prefix, "redis-cli", "-h", self.host, "-p", str(port), "ping"],
                                  capture_output=True, text=True, timeout=10, check=False)
            return done.stdout.strip() == "PONG"
        try:
            with socket.create_connection((self.host, port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def lost(self) -> str | None:
        """Why the Redis this run started is gone, or None (the user's own is not watched)."""
        if self.child is None or self.child.alive():
            return None
        return f"the Redis died ({self.child.ended()}); log: {self.child.log}"

    def __exit__(self, *exc: object) -> None:
        if self.child is not None:
            self.child.stop()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            leftovers.release(f"folder {self.folder}")


if __name__ == "__main__":  # `python -m ...store URL`: seed a Redis from inside its namespace
    try:
        print(f"seeded {seed(sys.argv[1])} keys")
    except UsageError as error:
        sys.exit(f"error: {error}")
