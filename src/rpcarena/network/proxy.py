"""An HTTP reverse proxy in front of a cell's fresh server: a real HAProxy, as the infobip2016 seed ran.

With `--via haproxy`, every HTTP cell gets its own HAProxy (mode http, keep-alive
on both sides, one thread, no logging) on a free loopback port, pinned with the
server, and the drivers call the proxy instead of the server. Bytes on the wire
are still counted on the server's port, so they are the proxy-to-server hop
(the hop that crosses an emulated link, `rpcarena.network.link`).

Only HTTP is proxied. The seed's MML (here typed-json) balanced on the client
side and connected straight to its servers, so for it `--via haproxy` means
direct; any other protocol is not proxied and its cells are unsupported.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from rpcarena.errors import ServerError
from rpcarena.process.children import Child, free_port

VIAS = ("haproxy",)
PROXIED = ("http-json", "http-javaser")
DIRECT = {"typed-json": "--via haproxy: typed-json connects directly, as the seed's MML did "
                        "(it balances on the client side, no proxy)"}
READY_TIMEOUT_S = 10.0

CONFIG = """\
global
    nbthread 1
    maxconn 4096
defaults
    mode http
    option http-keep-alive
    http-reuse always
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-request 60s
    timeout http-keep-alive 120s
frontend arena
    bind {front}
    default_backend server
backend server
    server cell {backend}
"""


def unsupported(protocol: str, via: str | None) -> str | None:
    """Why a contender of this protocol cannot be measured through `via`, or None."""
    if via is None or protocol in PROXIED or protocol in DIRECT:
        return None
    return (f"--via {via} proxies HTTP only; {protocol} is not proxied (the seed sent only its HTTP "
            "traffic through HAProxy)")


def direct(protocol: str, via: str | None) -> str | None:
    """The note for a protocol that `via` leaves unproxied on purpose, or None."""
    return DIRECT.get(protocol) if via is not None else None


def unavailable() -> str | None:
    return None if shutil.which("haproxy") else "haproxy not found (apt-get install haproxy)"


class Haproxy:
    """One HAProxy for one cell, forwarding to `backend` (host:port); its address is `target`."""

    def __init__(self, backend: str, cpus: tuple[int, ...] | None, folder: Path, host: str = "127.0.0.1",
                 prefix: list[str] | None = None) -> None:
        self.backend = backend
        self.prefix = prefix or []  # `ip netns exec NS`: beside the clients, across the link from the server
        self.cpus = cpus
        self.folder = folder
        self.host = host
        self.port = 0
        self.child: Child | None = None

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port}"

    def __enter__(self) -> Haproxy:
        binary = shutil.which("haproxy")
        if binary is None:
            raise ServerError(unavailable())
        self.port = free_port(self.host)
        config = self.folder / "haproxy.cfg"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(CONFIG.format(front=self.target, backend=self.backend))
        self.child = Child([*self.prefix, binary, "-db", "-f", str(config)], self.cpus, self.folder / "haproxy.log")
        try:
            self._await_ready(self.child)
        except BaseException:
            self.child.stop()
            raise
        return self

    def _await_ready(self, child: Child) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if not child.alive():
                raise ServerError(f"haproxy exited: {child.last_error_line()}; "
                                  f"config and log in {self.folder}")
            if self._listening():
                return
            time.sleep(0.02)
        raise ServerError(f"haproxy did not listen on {self.target} within {READY_TIMEOUT_S:.0f} s")

    def _listening(self) -> bool:
        if self.prefix:  # in another namespace: ask its kernel, a connect from here cannot reach it
            done = subprocess.run([*self.prefix, "ss", "-Hltn", f"sport = :{self.port}"], capture_output=True,
                                  text=True, timeout=10, check=False)
            return bool(done.stdout.strip())
        try:
            socket.create_connection((self.host, self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def lost(self) -> str | None:
        """Why the proxy serves no more mid-cell (it died, or is stopped), or None."""
        gone = self.child.lost("haproxy") if self.child is not None else None
        return f"{gone}; config and log in {self.folder}" if gone else None

    def __exit__(self, *exc: object) -> None:
        if self.child is not None:
            self.child.stop()
