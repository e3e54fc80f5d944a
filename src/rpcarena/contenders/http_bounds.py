"""What keeps rest-fastapi's uvicorn bounded against a hostile peer, which uvicorn is not by
itself: it reads any Content-Length, a header line of any length (httptools keeps it whole: a
64 MB line cost 128 MB), a chunked body on after answering it 413, keeps a connection that never
sends a request, and waits for ever on headers or a body sent a byte at a time
(docs/worker-contract.md, "Bounds every server keeps")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rpcarena.protocol import limits

if TYPE_CHECKING:  # fastapi and uvicorn are imported when rest-fastapi serves, not with the registry
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

TOO_LARGE = f"request body over {limits.MAX_REQUEST_BYTES} bytes: send less".encode()
MAX_HEAD_BYTES = 64 << 10  # a request line and headers, as h11's bound is set (the workloads send < 1 KB)
HEAD_TOO_LARGE = f"request headers over {MAX_HEAD_BYTES} bytes: send fewer".encode()


class BodyLimit:
    """ASGI middleware: 413 for a body over `limits.MAX_REQUEST_BYTES`, before a byte of it is read
    when its Content-Length says so, or where a chunked body crosses the bound (the endpoint's
    read fails with the 413)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        announced = dict(scope["headers"]).get(b"content-length", b"0")
        if not announced.isdigit() or int(announced) > limits.MAX_REQUEST_BYTES:
            return await _refuse(send)
        await self.app(scope, _bounded(receive), send)


def _bounded(receive: Receive) -> Receive:
    import fastapi

    received = 0

    async def bounded_receive() -> Message:
        nonlocal received
        message = await receive()
        received += len(message.get("body", b""))
        if received > limits.MAX_REQUEST_BYTES:
            raise fastapi.HTTPException(413, TOO_LARGE.decode())
        return message
    return bounded_receive


async def _refuse(send: Send) -> None:
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": TOO_LARGE})


def protocol() -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol whose connections close after the idle timeout (the config's
    `timeout_keep_alive`) from their start too, not only after a reply, and whose requests must
    arrive whole, headers and body, within it (a slowloris peer is closed); whose request head is
    refused (431) past MAX_HEAD_BYTES, and a body past the bound (413) where no Content-Length said
    so (chunked): then the connection closes, and nothing more of it is read."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class BoundedHttpTools(HttpToolsProtocol):
        request_deadline: Any = None
        head_bytes = 0  # what came while the request's head was incomplete
        in_head = True
        body_bytes = 0
        refused = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            self.head_bytes += len(data) if self.in_head else 0
            super().data_received(data)
            if self.in_head and self.head_bytes > MAX_HEAD_BYTES:  # httptools holds it whole: refused
                self._refuse(b"431 Request Header Fields Too Large", HEAD_TOO_LARGE)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.request_deadline = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

        def on_headers_complete(self) -> None:
            self.in_head, self.body_bytes = False, 0
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            self.body_bytes += len(body)
            if self.refused or self.body_bytes > limits.MAX_REQUEST_BYTES:
                self._refuse(b"413 Content Too Large", TOO_LARGE)
                return
            super().on_body(body)

        def on_message_complete(self) -> None:
            self.in_head, self.head_bytes = True, 0
            self._cancel_deadline()
            super().on_message_complete()

        def _refuse(self, status: bytes, why: bytes) -> None:
            """The refusal (unless a reply began: the app's own 413), then the connection closes."""
            if self.refused:
                return
            self.refused = True
            if self.cycle is None or not self.cycle.response_started:
                self.transport.write(b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain\r\nconnection: close\r\n"
                                     b"content-length: " + str(len(why)).encode() + b"\r\n\r\n" + why)
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_deadline()
            super().connection_lost(exc)

        def _cancel_deadline(self) -> None:
            if self.request_deadline is not None:
                self.request_deadline.cancel()
                self.request_deadline = None
    return BoundedHttpTools
