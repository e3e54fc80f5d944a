"""rpyc and rpyc-tuple: RPyC's ThreadedServer exposing a restricted service.

Never classic mode (SlaveService): that is remote code execution by design.
RPyC passes lists, dicts and objects by reference (netref proxies: every element
access on the other side is a round trip) and tuples and scalars by value. The
usp2018 seed's slow Euclidean distance came from exactly that, so both ways of
passing arguments are contenders: `rpyc` passes what a Python user naturally has
(lists, objects), `rpyc-tuple` passes tuples.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import Any

from rpcarena.codec import frames, tagless
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ServerError
from rpcarena.protocol import limits, replies, schema, semantics
from rpcarena.userschema import features, served
from rpcarena.userschema.served import Served


@dataclass
class Person:
    name: str
    age: int
    weight: float


@dataclass
class Item:
    id: int
    name: str
    price: float
    active: bool


def _exposed(op: semantics.Operation, method: str) -> Any:
    # Sequences the server creates go back as tuples: by value, as an RPyC author would.
    compute = op.compute
    if _whole_message(method):
        return lambda self, values: compute(*values)

    def call(self: Any, *args: Any) -> Any:
        result = compute(*args)
        return tuple(result) if isinstance(result, list) else result
    return call


def _whole_message(method: str) -> bool:
    """LargeData travels as one argument, its values (see to_args), not one argument per field."""
    return schema.methods()[method].request.startswith("LargeData")


def _service_class(user: Served | None = None) -> type:
    import rpyc

    def echo(self: Any, value: Any) -> Any:
        return value

    body = {f"exposed_{name}": _exposed(op, name) for name, op in semantics.OPERATIONS.items()}
    for method in schema.methods().values():
        body.setdefault(f"exposed_{method.name}", echo)
    if user is not None:
        body[f"exposed_{user.key}"] = _user_exposed(user)
    return type("ArenaService", (rpyc.Service,), body)


def _user_exposed(user: Served) -> Any:
    """The user's method by value: its message a tuple of its fields in schema order (nested messages
    and repeated fields tuples too), as an RPyC author passes plain objects; the reply likewise."""
    request, reply, answer = schema.descriptor(user.method.request), schema.descriptor(user.method.response), \
        user.answer_canonical

    def call(self: Any, value: tagless.Value) -> tagless.Value:
        return tagless.from_dict(reply, answer(tagless.to_dict(request, value)))
    return call


# What RPyC by value cannot pass of a user's schema here, and why (`userschema.features`): a message is
# a tuple of every field in schema order, so whatever a field's absence or choice means has no form.
_LACKS = {"oneof": "a tuple of every field has no form for a oneof",
          "map": "its tuples are of fixed fields: a map is not mapped to one yet",
          "recursion": "its tuples are of a fixed depth",
          "submessage": "a tuple of every field has no form for an absent message",
          "optional": "a tuple of every field has no form for an unset field",
          "group": "a tuple of every field: a group is not mapped to one yet",
          "extension": "a tuple holds the message's own fields, in schema order; an extension has no position",
          "well_known": "a tuple holds a message's fields; a well-known type is read from its own JSON form "
                        "(a Timestamp is a string), which is not mapped to a tuple"}


class Rpyc(PythonContender):
    id = "rpyc"
    protocol = "rpyc"
    description = "RPyC ThreadedServer; lists and objects passed by reference (netrefs)"
    python_modules = ("rpyc",)
    by_value = False

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        try:
            server = bounded_server()(_service_class(served.of(services)), hostname=host, port=port,
                                      protocol_config={"allow_public_attrs": True}, logger=_quiet(),
                                      backlog=limits.listen_backlog())
        except OSError as error:
            raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
        threading.Thread(target=server.start, daemon=True).start()
        while not server.active:  # start() listens; connections before that are refused
            time.sleep(0.01)
        announce_ready(server.port)
        threading.Event().wait()

    nodelay = False

    def user_unsupported(self, method: schema.Method) -> str | None:
        if not self.by_value:
            return "a user's method is passed by value: use rpyc-tuple"
        if method.streaming:
            return "RPyC calls are unary here; a stream has no form"
        return features.why(method, _LACKS)

    def unsupported(self, method: str) -> str | None:
        if not self.by_value and semantics.operation(method) and _whole_message(method):
            return ("its LargeData is a netref: reading every field is a round trip per field "
                    "(rpyc-tuple passes the values)")
        return super().unsupported(method)

    def default_client(self) -> str:
        return ("py-tuple" if self.by_value else "py") + ("-nodelay" if self.nodelay else "")


class RpycTuple(Rpyc):
    id = "rpyc-tuple"
    description = "RPyC ThreadedServer; sequences and objects passed as tuples (by value)"
    by_value = True


class RpycNodelay(Rpyc):
    id = "rpyc-nodelay"
    description = "rpyc, its client socket with TCP_NODELAY (rpyc.connect leaves it off: Nagle + delayed ACK)"
    nodelay = True


class RpycTupleNodelay(RpycTuple):
    id = "rpyc-tuple-nodelay"
    description = "rpyc-tuple, its client socket with TCP_NODELAY"
    nodelay = True


def bounded_server() -> type:
    """RPyC's ThreadedServer keeping the contract's bounds, which RPyC has none of: a frame over
    `limits.MAX_REQUEST_BYTES` (RPyC's header allows 4 GiB, read as it comes) or one inflating
    past it, and a peer that sends nothing or takes no reply for the idle timeout, close the
    connection (serve_all would wait in poll() for ever)."""
    from rpyc.core.channel import Channel
    from rpyc.core.stream import SocketStream
    from rpyc.utils.server import ThreadedServer

    class BoundedChannel(Channel):  # type: ignore[misc]
        def recv(self) -> bytes:
            length, compressed = self.FRAME_HEADER.unpack(self.stream.read(self.FRAME_HEADER.size))
            if length > limits.MAX_REQUEST_BYTES:
                self.stream.close()  # closed first: RPyC's close() would ask the peer, and wait
                raise EOFError(f"a frame of {length} bytes is over {limits.MAX_REQUEST_BYTES}")
            data: bytes = self.stream.read(length + len(self.FLUSHER))[:-len(self.FLUSHER)]  # rpyc: unannotated
            inflated = _inflate(data) if compressed else data
            if inflated is None:
                self.stream.close()
                raise EOFError(f"a frame inflating past {limits.MAX_REQUEST_BYTES} bytes")
            return inflated

    class BoundedStream(SocketStream):  # type: ignore[misc]
        def read(self, count: int) -> bytes:
            """SocketStream.read, which retries a timeout for ever, failing at the first."""
            parts = []
            while count > 0:
                try:
                    part = self.sock.recv(min(self.MAX_IO_CHUNK, count))
                except OSError as error:
                    self.close()
                    raise EOFError(error) from None
                if not part:
                    self.close()
                    raise EOFError("connection closed by peer")
                parts.append(part)
                count -= len(part)
            return b"".join(parts)

    class BoundedServer(ThreadedServer):  # type: ignore[misc]
        def _serve_client(self, sock: Any, credentials: Any) -> None:
            idle_s = limits.idle_timeout_s()
            frames.set_idle_timeout(sock, idle_s)  # a frame begun and not finished, a reply not taken
            config = dict(self.protocol_config, credentials=credentials,
                          endpoints=(sock.getsockname(), sock.getpeername()), logger=self.logger)
            conn = self.service._connect(BoundedChannel(BoundedStream(sock)), config)
            with contextlib.suppress(EOFError, OSError), frames.watched(sock, idle_s) as deadline:
                while not conn.closed and conn.serve(idle_s):  # a request must arrive whole in time
                    deadline.answered()
            with contextlib.suppress(EOFError, OSError):
                sock.shutdown(socket.SHUT_RDWR)  # or close() would ask an idle peer, and wait 30 s
                conn.close()
    return BoundedServer


def _inflate(data: bytes) -> bytes | None:
    """A compressed frame inflated, or None when it would inflate past the bound."""
    import zlib

    inflater = zlib.decompressobj()
    whole = inflater.decompress(data, limits.MAX_REQUEST_BYTES)
    return None if inflater.unconsumed_tail else whole


def _quiet() -> Any:
    import logging

    logger = logging.getLogger("rpcarena.rpyc")
    logger.setLevel(logging.ERROR)
    return logger


def to_args(request_type: str, request: dict[str, Any], by_value: bool) -> tuple[Any, ...]:
    """The positional arguments an RPyC user would pass for a canonical request."""
    seq = tuple if by_value else list
    if request_type == "Empty":
        return ()
    if request_type == "VectorPair":
        return tuple(seq(request[k][axis] for axis in "xyz") for k in ("a", "b"))
    if request_type == "RandRequest":
        return (request["count"], request["seed"])
    if request_type == "Person":
        person = Person(request["name"], request["age"], request["weight"])
        return (astuple(person) if by_value else person,)
    if request_type == "ItemList":
        items = [Item(**item) for item in request["items"]]
        return (tuple(astuple(i) for i in items) if by_value else items,)
    if request_type.startswith("LargeData"):
        return (tuple(request.values()) if by_value else dict(request),)
    (value,) = request.values()
    return (seq(value) if isinstance(value, list) else value,)


def to_result(response_type: str, response: dict[str, Any], args: tuple[Any, ...]) -> Any:
    """What the RPyC call returns for a canonical response."""
    if response_type == "Empty":
        return None
    if response_type in ("Person", "ItemList") or response_type.startswith("LargeData"):
        return args[0]  # an echo: the argument comes back as it went
    (value,) = response.values()
    return tuple(value) if isinstance(value, list) else value


class RpycClient(Client):
    """One RPyC connection, as `rpyc.connect` makes it (TCP_NODELAY off); the exposed method
    looked up once, like a stub."""

    by_value = False
    nodelay = False

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        import rpyc

        super().__init__(target, method, timeout_s)
        info = schema.methods()[method]
        self._request_type, self._response_type = info.request, info.response
        self._user = info.user  # the user's method: its messages are tuples in schema order
        self._rpyc_errors = (rpyc.core.vinegar.GenericException,)
        self._connect()

    def _connect(self) -> None:
        import rpyc

        host, _, port = self.target.rpartition(":")
        config = {"allow_public_attrs": True, "sync_request_timeout": self.timeout_s}
        if self.nodelay:
            stream = rpyc.SocketStream.connect(host, int(port), nodelay=True)
            self._conn = rpyc.connect_stream(stream, config=config)
        else:
            self._conn = rpyc.connect(host, int(port), config=config)
        self._fn = getattr(self._conn.root, self.method)

    def reconnect(self) -> None:
        self._conn.close()
        self._connect()

    def prepare(self, request: dict[str, Any]) -> Any:
        if self._user:
            return (tagless.from_dict(schema.descriptor(self._request_type), request),)
        return to_args(self._request_type, request, self.by_value)

    def expect(self, response: dict[str, Any]) -> Any:
        return response  # a user's: judged as a canonical dict (`user_reply`)

    def call(self, args: tuple[Any, ...]) -> Any:
        return self._fn(*args), args

    def matches(self, got: Any, want: Any) -> bool:
        result, args = got
        expected = to_result(self._response_type, want, args)
        if isinstance(expected, tuple) and not isinstance(result, tuple):
            result = tuple(result)  # a list the echo handed back
        return result == expected or self._response_type == "DoubleMsg" and _close(result, expected)

    def user_reply(self, value: Any) -> Any:
        """A reply (result, args) as the canonical dict of its tuple; an expected one is that dict already."""
        if isinstance(value, dict):
            return value
        return tagless.to_dict(schema.descriptor(self._response_type), tagless.plain(value[0]))

    def classify(self, error: BaseException) -> str:
        if isinstance(error, self._rpyc_errors):
            return "status_remote_error"
        return super().classify(error)

    def close(self) -> None:
        self._conn.close()


class RpycTupleClient(RpycClient):
    by_value = True


class RpycNodelayClient(RpycClient):
    nodelay = True


class RpycTupleNodelayClient(RpycTupleClient):
    nodelay = True


def _close(a: Any, b: Any) -> bool:
    return replies.equivalent(a, b)
