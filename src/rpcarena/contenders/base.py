"""What every contender and every Python client provides."""

from __future__ import annotations

import importlib.util
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from rpcarena.contract import Ready
from rpcarena.protocol import replies, schema
from rpcarena.userschema import judge


class Contender(ABC):
    """An RPC mechanism in one language: a server rpcarena can start, fresh, per cell."""

    id: str = ""
    protocol: str = ""
    language: str = "python"
    description: str = ""
    # client ids that can drive this contender besides the Python clients of its protocol
    native_clients: tuple[str, ...] = ()
    # the services of the schema its server implements (None: any, as an echo does)
    services: tuple[str, ...] | None = ("arena.Arena",)

    def unavailable(self) -> str | None:
        """Why this contender cannot run here, or None when it can."""
        return None

    def unsupported(self, method: str) -> str | None:
        """Why this contender does not implement `method`, or None when it does."""
        info = schema.methods()[method]
        if info.user:
            return self.user_unsupported(info)
        if self.services is not None and info.service not in self.services:
            return f"{self.id} does not implement {info.service}"
        return None

    def user_unsupported(self, method: schema.Method) -> str | None:
        """Why this contender cannot serve a method of the user's schema (`rpcarena run --proto`), or None."""
        return f"{self.id} is not built from a user's schema yet"

    @abstractmethod
    def server_argv(self, host: str, port: int, services: Mapping[str, str]) -> list[str]:
        """The command that starts this contender's server (the worker contract's `serve`),
        told the URL of each backing service of the run (`--redis URL`)."""

    def default_client(self) -> str:
        return "py"


class PythonContender(Contender):
    """A contender whose server runs in Python (`python -m rpcarena.python_server.serve ID`)."""

    python_modules: tuple[str, ...] = ()

    def unavailable(self) -> str | None:
        for module in self.python_modules:
            if importlib.util.find_spec(module) is None:
                return f"Python package {module!r} is not installed (run 'make setup')"
        return None

    def server_argv(self, host: str, port: int, services: Mapping[str, str]) -> list[str]:
        return [sys.executable, "-m", "rpcarena.python_server.serve", self.id, "--host", host, "--port", str(port),
                *service_options(services)]

    @abstractmethod
    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        """Serve forever on (host, port); call `announce_ready(port)` once accepting."""


def service_options(services: Mapping[str, str]) -> list[str]:
    """`--NAME URL` for each backing service: how every worker's `serve` learns them."""
    return [arg for name, url in sorted(services.items()) for arg in (f"--{name}", url)]


def announce_ready(port: int) -> None:
    """The worker contract's readiness line."""
    sys.stdout.write(Ready(event="ready", port=port, pid=os.getpid()).to_line() + "\n")
    sys.stdout.flush()


class Client(ABC):
    """One connection of one Python client to a server, for one method.

    `prepare` and `expect` turn canonical dicts into what this client passes and
    gets back; they run before the measured phase. `call` is what is timed.
    """

    # whether many threads may call at once on this one connection (`--connections`): a gRPC
    # channel does; a client that sends a call and reads its reply does not, and is pooled
    multiplexes = False

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        self.target = target
        self.method = method
        self.timeout_s = timeout_s
        # a method of the user's schema: every reply read with the user's schema and compared exactly
        self.judge = judge.of(method)

    def prepare(self, request: dict[str, Any]) -> Any:
        return request

    def expect(self, response: dict[str, Any]) -> Any:
        return response

    @abstractmethod
    def call(self, request: Any) -> Any:
        """Send one request and return the decoded reply; raise on failure."""

    def same(self, got: Any, want: Any) -> bool:
        """Whether a reply is the expected one: for a user's method, as its schema reads it (`judge`);
        for the arena's, canonical values equal up to the contract's float tolerance (`matches`)."""
        if self.judge is not None:
            return self.judge.same(self.user_reply(got), self.user_reply(want))
        return self.matches(got, want)

    def matches(self, got: Any, want: Any) -> bool:
        return got == want or replies.equivalent(self.canonical(got), self.canonical(want))

    def canonical(self, value: Any) -> Any:
        """The reply as a canonical dict, for the slow path of `matches`."""
        return value

    def user_reply(self, value: Any) -> Any:
        """A reply (or an expected one) of a user's method as the judge reads it: a protobuf message, a
        canonical dict, or a list of them (a server stream's)."""
        return self.canonical(value)

    def explain(self, got: Any, want: Any) -> str:
        """Why a reply is a wrong answer (the example a results document keeps): expected and actual."""
        if self.judge is not None:
            return self.judge.explain(self.user_reply(got), self.user_reply(want))
        return f"expected {self.canonical(want)!r:.140}, got {self.canonical(got)!r:.140}"

    def classify(self, error: BaseException) -> str:
        """The error kind of a failed call (worker contract names)."""
        return replies.classify_os_error(error)

    def close(self) -> None:
        """Release the connection."""

    def reconnect(self) -> None:
        """After a timeout or a broken connection: start afresh (the contract's reconnect).

        Clients whose library reconnects by itself (grpcio, httpx, requests) keep this no-op.
        """
