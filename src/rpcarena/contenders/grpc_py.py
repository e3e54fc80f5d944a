"""grpc-py: grpcio with a synchronous server on a thread pool, as the seeds ran it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent import futures
from typing import Any

from rpcarena.contenders import extra_handlers
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import limits, replies, schema, semantics
from rpcarena.userschema.samples import message_of

SERVER_THREADS = 10  # the seeds' ThreadPoolExecutor(max_workers=10)


def operation_handler(method: str) -> Callable[[Any, Any], Any] | None:
    """(request, context) -> reply for `method`, from the semantics table (each message of a
    stream is answered as its unary operation); None for an echo. A refused request raises
    `semantics.Refused`: the server's wrapper turns it into INVALID_ARGUMENT (`refusing`)."""
    op = semantics.operation(method)
    if op is None:
        return None
    read, compute, field = semantics.attribute_reader(method), op.compute, op.reply
    reply = schema.message_class(schema.methods()[method].response)

    def respond(request: Any, context: Any) -> Any:
        result = compute(*read(request))
        return reply() if field is None else reply(**{field: result})
    return respond


def logic() -> dict[str, Callable[[Any, Any], Any]]:
    """The unary handlers of arena.Arena's operations; the other unary methods are echoes."""
    found = {m.name: operation_handler(m.name) for m in schema.methods().values()
             if m.service == schema.SERVICE and not m.streaming}
    return {name: handler for name, handler in found.items() if handler is not None}


def refusing(handler: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A synchronous handler that answers a refused request with INVALID_ARGUMENT and its reason."""
    import grpc

    def respond(request: Any, context: Any) -> Any:
        try:
            return handler(request, context)
        except semantics.Refused as refusal:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(refusal))
    return respond


def _echo(request: Any, context: Any) -> Any:
    return request


def stream_logic(method: str = "InvertStream") -> Callable[[Any, Any], Iterator[Any]]:
    """A bidirectional stream answering each message as its operation does, in order."""
    answer = refusing(operation_handler(method) or _echo)

    def handler(requests: Any, context: Any) -> Iterator[Any]:
        for message in requests:
            yield answer(message, context)
    return handler


def handlers(grpc: Any, unary: dict[str, Any], stream: Any) -> Any:
    """A generic handler serving every method of arena.Arena."""
    table = {}
    for method in schema.methods().values():
        if method.service != schema.SERVICE:
            continue
        req = schema.message_class(method.request)
        resp = schema.message_class(method.response)
        if method.streaming:
            table[method.name] = grpc.stream_stream_rpc_method_handler(
                stream, request_deserializer=req.FromString, response_serializer=resp.SerializeToString)
        else:
            table[method.name] = grpc.unary_unary_rpc_method_handler(
                unary.get(method.name, _echo), request_deserializer=req.FromString,
                response_serializer=resp.SerializeToString)
    return grpc.method_handlers_generic_handler(schema.SERVICE, table)


def server_options() -> list[tuple[str, int]]:
    """grpcio's channel arguments for a server: its port never shared, a message over
    `limits.MAX_REQUEST_BYTES` RESOURCE_EXHAUSTED (grpcio's default, said here), and a connection
    that makes no call, finishes no handshake or answers no ping for the idle timeout closed."""
    idle_ms = int(limits.idle_timeout_s() * 1000)
    return [("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", limits.MAX_REQUEST_BYTES),
            ("grpc.max_connection_idle_ms", idle_ms), ("grpc.server_handshake_timeout_ms", idle_ms),
            ("grpc.keepalive_time_ms", idle_ms), ("grpc.keepalive_timeout_ms", idle_ms)]


def bind(server: Any, host: str, port: int) -> int:
    try:
        bound: int = server.add_insecure_port(f"{host}:{port}")  # grpcio ships no annotations
    except RuntimeError as error:
        raise ServerError(f"cannot bind {host}:{port} ({error}): choose a free port or use port 0") from None
    if bound == 0:
        raise ServerError(f"cannot bind {host}:{port}: choose a free port or use port 0")
    return bound


class GrpcPy(PythonContender):
    id = "grpc-py"
    protocol = "grpc"
    description = "grpcio sync server (thread pool of 10) and sync client"
    python_modules = ("grpc",)
    services = ("arena.Arena", "predictions.Predictions")

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        import grpc

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=SERVER_THREADS), options=server_options())
        unary = {name: refusing(handler) for name, handler in logic().items()}
        server.add_generic_rpc_handlers((handlers(grpc, unary, stream_logic()),))
        extra_handlers.add_to("grpcio", server, services)
        bound = bind(server, host, port)
        server.start()
        announce_ready(bound)
        threading.Event().wait()

    def user_unsupported(self, method: schema.Method) -> str | None:
        return None  # served by the handler `rpcarena.python_server.handlers` adds


class GrpcClient(Client):
    """A grpcio channel of its own (no shared subchannel) calling one method."""

    multiplexes = True  # HTTP/2 streams: calls from many threads in flight at once on the channel

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        import grpc

        super().__init__(target, method, timeout_s)
        self._grpc = grpc
        info = schema.methods()[method]
        self._request_type = schema.message_class(info.request)
        self._response_type = schema.message_class(info.response)
        self._channel = grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self._call = self._channel.unary_unary(
            info.path,
            request_serializer=self._request_type.SerializeToString,
            response_deserializer=self._response_type.FromString,
        )

    def prepare(self, request: dict[str, Any]) -> Any:
        return message_of(request, self._request_type)

    def expect(self, response: dict[str, Any]) -> Any:
        return message_of(response, self._response_type)

    def call(self, request: Any) -> Any:
        return self._call(request, timeout=self.timeout_s)

    def canonical(self, value: Any) -> Any:
        from google.protobuf import json_format

        return json_format.MessageToDict(value, preserving_proto_field_name=True)

    def user_reply(self, value: Any) -> Any:
        return value  # the message as it came off the wire (a server stream's list of them)

    def classify(self, error: BaseException) -> str:
        return replies.classify_grpc(error, self._grpc) or super().classify(error)

    def close(self) -> None:
        self._channel.close()


class GrpcOneWayClient(GrpcClient):
    """A user's client- or server-streaming method: a call is one stream, as its generated stub
    makes it: K requests sent and one reply, or one request and its K replies read to the end."""

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        info = schema.methods()[method]
        self._upload = info.one_way == "client"
        make = self._channel.stream_unary if self._upload else self._channel.unary_stream
        self._call = make(info.path, request_serializer=self._request_type.SerializeToString,
                          response_deserializer=self._response_type.FromString)

    def prepare(self, request: Any) -> Any:
        """The call's requests (a client stream's list), as messages."""
        one = GrpcClient.prepare
        return [one(self, r) for r in request] if self._upload else one(self, request)

    def expect(self, response: Any) -> Any:
        """The call's reply (a server stream's list), as messages."""
        one = GrpcClient.expect
        return one(self, response) if self._upload else [one(self, r) for r in response]

    def call(self, request: Any) -> Any:
        if self._upload:
            return self._call(iter(request), timeout=self.timeout_s)
        replies, last = Streamed(), time.perf_counter_ns()
        for reply in self._call(request, timeout=self.timeout_s):
            now = time.perf_counter_ns()
            replies.append(reply)
            replies.latencies_ns.append(now - last)
            last = now
        return replies

    def message_latencies(self, reply: Any, latency_ns: int) -> list[int]:
        """Each reply message's latency (`worker.drive`): a server stream's from the stream's start or
        the message before it; a client stream's one reply, the call's."""
        return reply.latencies_ns if isinstance(reply, Streamed) else [latency_ns]

    def canonical(self, value: Any) -> Any:
        one = GrpcClient.canonical
        return [one(self, v) for v in value] if isinstance(value, list) else one(self, value)


class Streamed(list[Any]):
    """A server stream's replies, and when each came: from the call's start, or the reply before it."""

    def __init__(self) -> None:
        super().__init__()
        self.latencies_ns: list[int] = []


class GrpcStreamClient(GrpcClient):
    """One bidirectional stream kept open; a call is one message out and its reply back."""

    multiplexes = False  # the stream's replies come in order to the one caller: pooled

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        import queue

        super().__init__(target, method, timeout_s)
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()  # request messages, then None
        stream = self._channel.stream_stream(
            schema.methods()[method].path, request_serializer=self._request_type.SerializeToString,
            response_deserializer=self._response_type.FromString)
        self._replies = stream(iter(self._outbox.get, None))

    def call(self, request: Any) -> Any:
        self._outbox.put(request)
        return next(self._replies)

    def close(self) -> None:
        self._outbox.put(None)
        self._replies.cancel()
        super().close()
