"""rest-fastapi: FastAPI on uvicorn (uvloop and httptools where installed), JSON bodies.

Request and response bodies are pydantic models made from the canonical schema,
as a FastAPI developer would declare them, so validation is part of the cost.
The Python HTTP clients (httpx, requests.Session) call any server of the
HTTP/JSON mapping (POST /arena/{Method}), native ones included.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import socket
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from rpcarena.contenders import extra_handlers, http_bounds, http_mapping
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import limits, schema, semantics

if TYPE_CHECKING:  # pydantic is imported when rest-fastapi serves, not with the registry
    from pydantic import BaseModel

_SCALARS = {"TYPE_INT32": int, "TYPE_INT64": int, "TYPE_UINT32": int, "TYPE_UINT64": int,
            "TYPE_DOUBLE": float, "TYPE_FLOAT": float, "TYPE_STRING": str, "TYPE_BOOL": bool}


@cache
def model(message_name: str) -> type[BaseModel]:
    """A pydantic model for a message of the canonical schema (defaults as in proto3)."""
    import pydantic
    from google.protobuf.descriptor import FieldDescriptor

    descriptor = schema.pb2().DESCRIPTOR.message_types_by_name[message_name]
    type_names = {v: k for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}
    fields: dict[str, Any] = {}
    for field in descriptor.fields:
        if field.message_type is not None:
            kind: Any = model(field.message_type.name)
        else:
            kind = _SCALARS[type_names[field.type]]
        repeated = field.is_repeated
        if repeated:
            fields[field.name] = (list[kind], pydantic.Field(default_factory=list))
        elif field.message_type is not None:
            fields[field.name] = (kind, pydantic.Field(default_factory=kind))
        else:
            fields[field.name] = (kind, kind())
    return pydantic.create_model(message_name, **fields)


def _operation(method: str) -> Any:
    """body -> reply for `method`, from the semantics table; None for an echo. A refused request
    is a 400 whose detail says why."""
    import fastapi

    op = semantics.operation(method)
    if op is None:
        return None
    read, compute, field = semantics.attribute_reader(method), op.compute, op.reply

    def respond(body: Any) -> dict[str, Any]:
        try:
            result = compute(*read(body))
        except semantics.Refused as refusal:
            raise fastapi.HTTPException(status_code=400, detail=str(refusal)) from None
        return {} if field is None else {field: result}
    return respond


def _stream_socket(method: str) -> Any:
    """A stream over a WebSocket: each JSON message answered as its operation does, in order,
    until the client leaves."""
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def endpoint(websocket: Any) -> None:
        await websocket.accept()
        try:
            while True:
                message = json.loads(await websocket.receive_text())
                await websocket.send_text(json.dumps(semantics.respond(method, message)))
        except WebSocketDisconnect:
            return

    # FastAPI reads the handler's parameters from __signature__, which typeshed's functions lack
    endpoint.__signature__ = inspect.Signature([inspect.Parameter(  # type: ignore[attr-defined]
        "websocket", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=WebSocket)])
    return endpoint


def _endpoint(request_model: type, fn: Any) -> Any:
    async def endpoint(body: Any) -> Any:
        return fn(body)

    endpoint.__signature__ = inspect.Signature([inspect.Parameter(  # type: ignore[attr-defined]
        "body", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=request_model)])
    return endpoint


def app(services: Mapping[str, str]) -> Any:
    """The FastAPI application serving every unary method of the canonical schema."""
    import fastapi

    application = fastapi.FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    for method in schema.methods().values():
        if method.service != schema.SERVICE:
            continue
        if method.streaming:
            application.add_api_websocket_route(f"/arena/ws/{method.name}", _stream_socket(method.name))
            continue
        fn = _operation(method.name) or (lambda body: body)
        application.add_api_route(f"/arena/{method.name}", _endpoint(model(method.request), fn),
                                  methods=["POST"], response_model=model(method.response))
    extra_handlers.add_to("fastapi", application, services)
    return application


def listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
    sock.listen(limits.listen_backlog())
    return sock


class RestFastapi(PythonContender):
    id = "rest-fastapi"
    protocol = "http-json"
    description = "FastAPI on uvicorn (uvloop/httptools), pydantic bodies; httpx or requests client"
    python_modules = ("fastapi", "uvicorn", "httpx")
    services = ("arena.Arena", "predictions.Predictions")

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        import uvicorn

        has = importlib.util.find_spec
        config = uvicorn.Config(http_bounds.BodyLimit(app(services)), log_level="warning", access_log=False,
                                lifespan="off", loop="uvloop" if has("uvloop") else "asyncio",
                                http=http_bounds.protocol() if has("httptools") else "h11",
                                # uvicorn annotates an int but hands it to loop.call_later, which takes the
                                # float a short test timeout is
                                timeout_keep_alive=limits.idle_timeout_s(),  # type: ignore[arg-type]
                                ws_max_size=limits.MAX_REQUEST_BYTES,
                                h11_max_incomplete_event_size=http_bounds.MAX_HEAD_BYTES,
                                backlog=limits.listen_backlog())  # uvicorn listens again, with its own 2,048
        sock = listen(host, port)
        announce_ready(sock.getsockname()[1])
        uvicorn.Server(config).run(sockets=[sock])

    def user_unsupported(self, method: schema.Method) -> str | None:
        """A unary method is `POST /package.Service/Method` (the handler `rpcarena.python_server.handlers`
        adds); a stream has no REST/JSON form a user would write."""
        return "a stream has no REST/JSON form: REST answers one request with one reply" if method.streaming else None


class HttpStatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP status {status}")
        self.status = status


class _HttpClient(Client):
    """What both Python HTTP clients share: a non-200 reply is an error; errors by kind."""

    timeout_errors: tuple[type, ...] = ()
    transport_errors: tuple[type, ...] = ()

    def decode(self, reply: Any) -> Any:
        if reply.status_code != 200:
            raise HttpStatusError(reply.status_code)
        return http_mapping.reply_of(self.method, json.loads(reply.content, parse_int=_integer))

    def classify(self, error: BaseException) -> str:
        if isinstance(error, HttpStatusError):
            return f"status_{error.status}"
        if isinstance(error, self.timeout_errors):
            return "timeout"
        if isinstance(error, self.transport_errors):
            return "connection"
        return super().classify(error)


def _integer(text: str) -> int | float:
    """A JSON integer literal, but "-0", which is how proto JSON in Go writes a double's -0.0 (json
    would read it as the integer 0, and the sign is part of the value)."""
    return -0.0 if text == "-0" else int(text)


class HttpxClient(_HttpClient):
    """httpx.Client with one keep-alive connection."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        import httpx

        super().__init__(target, method, timeout_s)
        self.timeout_errors, self.transport_errors = (httpx.TimeoutException,), (httpx.TransportError,)
        self._client = httpx.Client(base_url=f"http://{target}", timeout=timeout_s,
                                    limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))

    def call(self, request: dict[str, Any]) -> Any:
        verb, path, body = http_mapping.request_of(self.method, request)
        return self.decode(self._client.request(verb, path, json=body))

    def close(self) -> None:
        self._client.close()


class NewConnectionClient(HttpxClient):
    """httpx.Client asking for `Connection: close`: a new TCP connection for every call, as a REST client
    without keep-alive makes; its handshake adds a round trip per call (cs6650's REST took two round
    trips to gRPC's one). `--client py-newconn`."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        self._client.headers["Connection"] = "close"


class RequestsClient(_HttpClient):
    """requests.Session with a pool of one keep-alive connection."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        import requests

        super().__init__(target, method, timeout_s)
        self.timeout_errors, self.transport_errors = (requests.Timeout,), (requests.ConnectionError,)
        self._session = requests.Session()
        self._session.mount("http://", requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=1))
        self._base = f"http://{target}"

    def call(self, request: dict[str, Any]) -> Any:
        verb, path, body = http_mapping.request_of(self.method, request)
        return self.decode(self._session.request(verb, self._base + path, json=body, timeout=self.timeout_s))

    def close(self) -> None:
        self._session.close()


class WebSocketClient(_HttpClient):
    """The REST side's stream: one WebSocket (ws://HOST/arena/ws/{Method}), one JSON message each way."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        super().__init__(target, method, timeout_s)
        self.timeout_errors, self.transport_errors = (TimeoutError,), (ConnectionClosed, OSError)
        self._socket = connect(f"ws://{target}/arena/ws/{method}", open_timeout=timeout_s,
                               compression=None)

    def call(self, request: dict[str, Any]) -> Any:
        self._socket.send(json.dumps(request))
        return json.loads(self._socket.recv(timeout=self.timeout_s))

    def close(self) -> None:
        self._socket.close()
