"""Native contenders (Go, Rust, Java): one per entry of a worker's manifest, `workers/*/worker.json`.

A native contender needs no Python edit: its worker's manifest names it, its
protocol and its clients; `rpcarena.process.builds` builds the worker.
"""

from __future__ import annotations

from collections.abc import Mapping

from rpcarena.contenders.base import Contender, service_options
from rpcarena.contract import ManifestEntry
from rpcarena.errors import UnavailableError
from rpcarena.process.builds import Worker, workers
from rpcarena.protocol import schema


class NativeContender(Contender):
    """A contender served by a native worker."""

    def __init__(self, worker: Worker, entry: ManifestEntry) -> None:
        self.worker = worker
        self.id = entry.id
        self.protocol = entry.protocol
        self.language = worker.language
        self.description = entry.description
        self.has_server = entry.server
        self.native_clients = (worker.language,) if entry.client else ()
        self._unsupported = {m: entry.why for m in entry.unsupported_methods}
        self.services = None if entry.protocol == "tcp-raw" else tuple(entry.services)

    def unavailable(self) -> str | None:
        return self.worker.unavailable()

    def unsupported(self, method: str) -> str | None:
        return self._unsupported.get(method) or super().unsupported(method)

    def user_unsupported(self, method: schema.Method) -> str | None:
        return f"the {self.language} worker does not build a user's schema yet (only Python serves one)"

    def server_argv(self, host: str, port: int, services: Mapping[str, str]) -> list[str]:
        if not self.has_server:
            raise UnavailableError(f"{self.id} has no server; use it as a client only")
        return self.worker.argv("serve", "--contender", self.id, "--host", host, "--port", str(port),
                                *service_options(services))

    def default_client(self) -> str:
        return self.language if self.native_clients else "py"


def contenders() -> list[NativeContender]:
    """The native contenders that serve (client-only entries are in `client`)."""
    return [NativeContender(worker, entry) for worker in workers().values()
            for entry in worker.entries if entry.server]


def client_ids(protocol: str) -> list[str]:
    """Every native --client id that speaks `protocol`."""
    return [cid for worker in workers().values() for cid in worker.client_entries(protocol)]


def client(client_id: str, protocol: str) -> NativeContender | None:
    """The native contender entry whose client `client_id` drives servers of `protocol`."""
    for worker in workers().values():
        entry = worker.client_entries(protocol).get(client_id)
        if entry is not None:
            return NativeContender(worker, entry)
    return None


def clients_only() -> list[NativeContender]:
    """Native clients without a server of their own (load clients such as `rust-h1`)."""
    return [NativeContender(worker, entry) for worker in workers().values()
            for entry in worker.entries if not entry.server]
