"""An HTTP client of a templated endpoint: one keep-alive connection (httpx) per client."""

from __future__ import annotations

import json
from typing import Any

from rpcarena.contenders.base import Client
from rpcarena.external import checks


class HttpStatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP status {status}")
        self.status = status


class HttpTargetClient(Client):
    """Requests are rendered dicts (method, url, headers, body); a reply is its status and body.

    A status other than `expect_status` (default: any 2xx) is an error of kind
    `status_NNN`; JSON checks run on the body after the call is timed.
    """

    def __init__(self, target: str, method: str, timeout_s: float, description: dict) -> None:
        import httpx

        super().__init__(target, method, timeout_s)
        self._timeouts, self._transport = (httpx.TimeoutException,), (httpx.TransportError,)
        self._status = description.get("expect_status")
        self._client = httpx.Client(timeout=timeout_s,
                                    limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))

    def prepare(self, request: dict) -> Any:
        body = request.get("body")
        return (request["method"], request["url"], request.get("headers") or {},
                body.encode() if body is not None else None)

    def call(self, request: Any) -> Any:
        method, url, headers, body = request
        reply = self._client.request(method, url, headers=headers, content=body)
        status = reply.status_code
        if (status != self._status) if self._status else not 200 <= status < 300:
            raise HttpStatusError(status)
        return reply.content

    def same(self, got: bytes, want: list) -> bool:
        if not want:
            return True
        try:
            return checks.holds(json.loads(got), want)
        except ValueError:
            return False  # checks asked for JSON and the body is not JSON

    def classify(self, error: BaseException) -> str:
        if isinstance(error, HttpStatusError):
            return f"status_{error.status}"
        if isinstance(error, self._timeouts):
            return "timeout"
        if isinstance(error, self._transport):
            return "connection"
        return super().classify(error)

    def describe(self, error: BaseException) -> str:
        return str(error) or type(error).__name__

    def close(self) -> None:
        self._client.close()
