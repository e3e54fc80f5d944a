"""Native contenders (Go, Rust, Java, Node.js): one per entry of a worker's manifest, `workers/*/worker.json`.

A native contender needs no Python edit: its worker's manifest names it, its
protocol and its clients; `rpcarena.process.builds` builds the worker.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

from rpcarena.contenders.base import Contender, service_options
from rpcarena.contenders.tcp_raw import ONE_WAY_FLOOR
from rpcarena.contract import FLOOR_PROTOCOL, ManifestEntry
from rpcarena.errors import ArenaError, UnavailableError
from rpcarena.process.builds import Worker, workers
from rpcarena.protocol import schema
from rpcarena.userschema import features
from rpcarena.userschema.workload import NEED


class NativeContender(Contender):
    """A contender served by a native worker."""

    def __init__(self, worker: Worker, entry: ManifestEntry, role: str = "server") -> None:
        self.worker = worker
        self.entry = entry
        self.role = role  # as a cell's server, or as its client (`client`): which sample values matter
        self.id = entry.id
        self.protocol = entry.protocol
        self.language = worker.language
        self.description = entry.description
        self.has_server = entry.server
        self.native_clients = (worker.language,) if entry.client else ()
        self._unsupported = {m: entry.why for m in entry.unsupported_methods}
        lacks = {**entry.user_lacks, **(entry.client_lacks if role == "client" else {})}
        self._user_lacks = {kind: str(why) for kind, why in lacks.items()}
        for key, named in (("user_lacks", entry.user_lacks), ("client_lacks", entry.client_lacks)):
            unknown = sorted(set(named) - set(features.NAMES) - {"any", "stream"})
            if unknown:  # a kind read as no kind would measure the field it meant to refuse
                raise ArenaError(f"workers/{worker.language}/worker.json: {entry.id}'s {key} names "
                                 f"{', '.join(unknown)}: use any, stream or one of {', '.join(features.NAMES)}")
        self._user_streams = {str(kind) for kind in entry.user_streams}
        self.services = None if entry.protocol == "tcp-raw" else tuple(entry.services)

    def unavailable(self) -> str | None:
        return self.worker.entry_unavailable(self.entry)

    def unsupported(self, method: str) -> str | None:
        return self._unsupported.get(method) or super().unsupported(method)

    def user_unsupported(self, method: schema.Method) -> str | None:
        """A worker that builds a variant per schema serves it, but for the features its entry lacks."""
        if not self.worker.builds_schemas:
            return f"the {self.language} worker does not build a user's schema yet (no schema_build in its manifest)"
        if "any" in self._user_lacks:  # the worker builds schemas; this contender does not serve them yet
            return self._user_lacks["any"]
        if method.streaming and "stream" in self._user_lacks:
            return self._user_lacks["stream"]
        if method.one_way and self.protocol == FLOOR_PROTOCOL:
            return ONE_WAY_FLOOR
        if method.one_way and method.one_way not in self._user_streams:
            return (f"{self.id} serves and calls a user's unary and bidirectional methods; "
                    f"a {method.one_way}-streaming one not yet")
        return features.why(method, {k: v for k, v in self._user_lacks.items() if k in features.NAMES}, self.role)

    def server_argv(self, host: str, port: int, services: Mapping[str, str]) -> list[str]:
        if not self.has_server:
            raise UnavailableError(f"{self.id} has no server; use it as a client only")
        worker = self.worker.for_schema(user_set() if NEED in services else None)
        return worker.argv("serve", "--contender", self.id, "--host", host, "--port", str(port),
                           *service_options(services))

    def driver_argv(self, schema_b64: str | None) -> list[str]:
        """The worker's `drive`: the variant built with the user's schema when the spec carries one."""
        return self.worker.for_schema(base64.b64decode(schema_b64) if schema_b64 else None).argv("drive")

    def default_client(self) -> str:
        return self.language if self.native_clients else "py"


def user_set() -> bytes | None:
    """The user's compiled schema this process holds (`schema.add_user`), or None."""
    b64 = schema.user_set_b64()
    return base64.b64decode(b64) if b64 else None


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
            return NativeContender(worker, entry, role="client")
    return None


def clients_only() -> list[NativeContender]:
    """Native clients without a server of their own (load clients such as `rust-h1`)."""
    return [NativeContender(worker, entry) for worker in workers().values()
            for entry in worker.entries if not entry.server]
