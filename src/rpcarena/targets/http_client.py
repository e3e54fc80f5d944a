"""An HTTP client of a templated endpoint: one keep-alive connection (httpx) per client.

HTTP/1.1, or HTTP/2 with `--http2` (negotiated by ALPN over TLS, prior knowledge on
a plain http:// URL); a reply in another version is an error, not a sample.
"""

from __future__ import annotations

import json
from typing import Any

from rpcarena.contenders.base import Client
from rpcarena.targets import checks, tls


class HttpStatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP status {status}")
        self.status = status


class HttpVersionError(Exception):
    """--http2 asked, and the server answered in another version."""


class HttpTargetClient(Client):
    """Requests are rendered dicts (method, url, headers, body); a reply is its status and body.

    A status other than `expect_status` (default: any 2xx) is an error of kind
    `status_NNN`; JSON checks run on the body after the call is timed.
    """

    def __init__(self, target: str, method: str, timeout_s: float, description: dict[str, Any]) -> None:
        import httpx

        super().__init__(target, method, timeout_s)
        self._timeouts, self._transport = (httpx.TimeoutException,), (httpx.TransportError,)
        self._status = description.get("expect_status")
        self._http2 = bool(description.get("http2"))
        secure = description.get("tls")
        self._client = httpx.Client(timeout=timeout_s, verify=tls.context(secure) if secure else True,
                                    http2=self._http2, http1=not (self._http2 and secure is None),
                                    limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))

    def prepare(self, request: dict[str, Any]) -> Any:
        body = request.get("body")
        return (request["method"], request["url"], request.get("headers") or {},
                body.encode() if body is not None else None)

    def call(self, request: Any) -> Any:
        method, url, headers, body = request
        reply = self._client.request(method, url, headers=headers, content=body)
        status = reply.status_code
        if self._http2 and reply.http_version != "HTTP/2":
            raise HttpVersionError(f"--http2 asked, the server answered in {reply.http_version}")
        if (status != self._status) if self._status else not 200 <= status < 300:
            raise HttpStatusError(status)
        return reply.content

    def same(self, got: bytes, want: list[Any]) -> bool:
        if not want:
            return True
        try:
            return checks.holds(json.loads(got), want)
        except ValueError:
            return False  # checks asked for JSON and the body is not JSON

    def explain(self, got: bytes, want: list[Any]) -> str:
        try:
            return checks.explain(json.loads(got), want)
        except ValueError:
            return f"--expect-json needs a JSON body, got {got[:checks.SHOWN_CHARS]!r}"

    def classify(self, error: BaseException) -> str:
        if isinstance(error, HttpStatusError):
            return f"status_{error.status}"
        if isinstance(error, HttpVersionError):
            return "http_version"
        if isinstance(error, self._timeouts):
            return "timeout"
        if isinstance(error, self._transport):
            return "connection"
        return super().classify(error)

    def describe(self, error: BaseException) -> str:
        return str(error) or type(error).__name__

    def close(self) -> None:
        self._client.close()
