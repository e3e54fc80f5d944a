"""A real Redis for the predictions workloads: started on a unix socket of the run's own, seeded, stopped.

Unless the user points at one (--redis URL), the arena starts `redis-server`
(Debian package redis-server) with no persistence, loads the deterministic data
set (`dataset.py`), and stops it at the end, removing its folder (its log stays in the
run's log folder). Servers learn the URL as `serve --redis URL` (the arena's backing
services pass it explicitly).
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from pathlib import Path

from rpcarena.errors import UnavailableError, UsageError
from rpcarena.files import output
from rpcarena.process import leftovers
from rpcarena.process.children import Child
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

    Ours is closed to other users of the machine: it listens on a unix socket alone (no TCP port),
    in a folder only this user can enter (mkdtemp's 0700), and asks a password made for the run;
    its configuration (with the password) is a file only this user reads, never a command line.
    Every client language reads the URL it is given, `unix://:PASSWORD@/folder/redis.sock?db=0`
    (redis-py and go-redis as is; the Rust worker moves the password where redis-rs reads it).
    Across an emulated link the servers run in a network namespace of their own: the Redis runs
    there too, beside them as on the seed's server host (`prefix`); a socket is reached from any.
    """

    def __init__(self, url: str | None = None, host: str = "127.0.0.1", prefix: list[str] | None = None,
                 logs: Path | None = None) -> None:
        self.url = url
        self.host = host
        self.prefix = prefix or []
        self.logs = logs  # the run's log folder: the Redis's log stays there after the run
        self.child: Child | None = None
        self.folder: Path | None = None

    def __enter__(self) -> RedisStore:
        if self.url is not None and self.prefix:
            raise UnavailableError("across --link the servers cannot reach --redis: drop it, and rpcarena "
                                   "starts a Redis beside the servers")
        if self.url is None:
            self._start()
        assert self.url is not None
        seed(self.url)
        return self

    def _start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise UnavailableError("redis-server not found: apt-get install redis-server, or pass --redis URL")
        folder = self.folder = Path(tempfile.mkdtemp(prefix=leftovers.name("folder", "redis", "")))  # mode 0700
        leftovers.register(f"folder {folder}", lambda: shutil.rmtree(folder, ignore_errors=True))
        password, socket_path = secrets.token_hex(16), folder / "redis.sock"
        config = folder / "redis.conf"
        output.write(config, CONFIG.format(socket=socket_path, password=password, folder=folder))
        config.chmod(0o600)
        log = (self.logs or folder) / "redis.log"
        self.child = Child([*self.prefix, binary, str(config)], None, log)
        self.url = f"unix://:{password}@{socket_path}?db=0"
        self._await_ready(log)

    def _await_ready(self, log: Path) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.child is not None and not self.child.alive():
                raise UnavailableError(f"redis-server exited: {self.child.last_error_line()}; log: {log}")
            if self._pong():
                return
            time.sleep(0.05)
        raise UnavailableError(f"redis-server did not answer within {READY_TIMEOUT_S:.0f} s; log: {log}")

    def _pong(self) -> bool:
        import redis

        try:
            client = redis.Redis.from_url(str(self.url), socket_timeout=1)
            try:
                return bool(client.ping())
            finally:
                client.close()
        except (redis.RedisError, OSError):
            return False

    def lost(self) -> str | None:
        """Why the Redis this run started serves no more (it died, or is stopped), or None (the
        user's own is not watched)."""
        gone = self.child.lost("the Redis") if self.child is not None else None
        return f"{gone}; log: {self.child.log}" if gone and self.child is not None else None

    def __exit__(self, *exc: object) -> None:
        if self.child is not None:
            self.child.stop()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            leftovers.release(f"folder {self.folder}")


# No TCP port: a unix socket only this user reaches; a password besides. The log goes to stderr,
# which is the run's redis.log (`Child`).
CONFIG = """\
port 0
unixsocket {socket}
unixsocketperm 700
requirepass {password}
protected-mode yes
save ""
appendonly no
dir {folder}
logfile /dev/stderr
"""
