"""What keeps rest-fastapi's uvicorn bounded against a hostile peer, which uvicorn is not by
itself: it reads any Content-Length, keeps a connection that never sends a request, and waits
for ever on headers or a body sent a byte at a time (docs/worker-contract.md, "Bounds every
server keeps")."""

from __future__ import annotations

from typing import Any

from rpcarena.protocol import limits

TOO_LARGE = f"request body over {limits.MAX_REQUEST_BYTES} bytes: send less".encode()


class BodyLimit:
    """ASGI middleware: 413 for a body over `limits.MAX_REQUEST_BYTES`, before a byte of it is read
    when its Content-Length says so, or where a chunked body crosses the bound (the endpoint's
    read fails with the 413)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        announced = dict(scope["headers"]).get(b"content-length", b"0")
        if not announced.isdigit() or int(announced) > limits.MAX_REQUEST_BYTES:
            return await _refuse(send)
        await self.app(scope, _bounded(receive), send)


def _bounded(receive: Any) -> Any:
    import fastapi

    received = 0

    async def bounded_receive() -> dict:
        nonlocal received
        message = await receive()
        received += len(message.get("body", b""))
        if received > limits.MAX_REQUEST_BYTES:
            raise fastapi.HTTPException(413, TOO_LARGE.decode())
        return message
    return bounded_receive


async def _refuse(send: Any) -> None:
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": TOO_LARGE})


def protocol() -> type:
    """uvicorn's httptools protocol whose connections close after the idle timeout (the config's
    `timeout_keep_alive`) from their start too, not only after a reply, and whose requests must
    arrive whole, headers and body, within it (a slowloris peer is closed)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpTools(HttpToolsProtocol):  # type: ignore[misc]
        request_deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.request_deadline = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

        def on_message_complete(self) -> None:
            self._cancel_deadline()
            super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_deadline()
            super().connection_lost(exc)

        def _cancel_deadline(self) -> None:
            if self.request_deadline is not None:
                self.request_deadline.cancel()
                self.request_deadline = None
    return BoundedHttpTools
