"""thrift-binary and thrift-compact: thriftpy2 (Cython protocols where it has them).

The IDL is generated from the canonical schema (`rpcarena.codec.thrift_idl`).
The server is thriftpy2's TThreadedServer (a thread per connection) over a
buffered transport; the client is thriftpy2's TClient with one connection.
The two contenders differ only in the protocol: binary (fixed-width, field
headers of 3 bytes) or compact (varints and delta-encoded field ids).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from rpcarena.codec import frames, thrift_idl, thrift_user
from rpcarena.contenders.base import Client, PythonContender, announce_ready
from rpcarena.errors import ArenaError, ServerError
from rpcarena.protocol import limits, replies, schema, semantics
from rpcarena.userschema import features, served
from rpcarena.userschema.served import Served

if TYPE_CHECKING:  # thriftpy2 is imported when a Thrift contender runs, not with the registry
    from thriftpy2.transport import TServerSocket

_FD = FieldDescriptor
_LIST = 15  # thriftpy2's TType.LIST


def protocol_factory(name: str) -> Any:
    from thriftpy2 import protocol

    if name == "binary":
        return getattr(protocol, "TCyBinaryProtocolFactory", protocol.TBinaryProtocolFactory)()
    return getattr(protocol, "TCyCompactProtocolFactory", protocol.TCompactProtocolFactory)()


def transport_factory() -> Any:
    from thriftpy2 import transport

    return getattr(transport, "TCyBufferedTransportFactory", transport.TBufferedTransportFactory)()


def to_struct(message: Descriptor, data: dict[str, Any], module: Any = None) -> Any:
    """A canonical dict as an instance of the generated Thrift struct (defaults filled in), of
    arena.proto's IDL or of `module` (the user's)."""
    module = module or thrift_idl.module()
    cls = getattr(module, message.name)
    return cls(**{f.name: _value(f, data.get(f.name), module) for f in message.fields})


def _value(field: FieldDescriptor, value: Any, module: Any) -> Any:
    if field.is_repeated:
        return [_single(field, v, module) for v in (value or [])]
    return _single(field, value, module)


def _single(field: FieldDescriptor, value: Any, module: Any) -> Any:
    if field.type == _FD.TYPE_MESSAGE:
        return to_struct(field.message_type, value or {}, module)
    if value is None:
        return field.default_value
    return float(value) if field.type in (_FD.TYPE_DOUBLE, _FD.TYPE_FLOAT) else value


def to_dict(value: Any) -> Any:
    """A Thrift struct (or list of them) as a plain dict, for comparisons with tolerance."""
    if isinstance(value, list):
        return [to_dict(v) for v in value]
    if hasattr(value, "thrift_spec"):
        return {k: to_dict(v) for k, v in vars(value).items()}
    return value


def user_processor(user: Served) -> Any:
    """The user's service on its generated IDL: the struct read as the canonical request, answered."""
    from thriftpy2.thrift import TProcessor

    module = thrift_user.module(user.method.service)
    request, reply = schema.descriptor(user.method.request), schema.descriptor(user.method.response)
    answer = user.answer_canonical

    def call(req: Any) -> Any:
        return thrift_user.to_struct(reply, answer(thrift_user.to_canonical(request, req)), module)
    service = getattr(module, user.method.service.rpartition(".")[2])
    return TProcessor(service, type("UserHandler", (), {user.method.name: staticmethod(call)})())


# What the IDL generated here cannot say of a user's schema, and why (`userschema.features`).
_LACKS = {"extension": "a Thrift struct holds its own fields; an extension, declared outside the message, "
                       "has no place in it",
          "well_known": "Thrift has no well-known types: the IDL would declare a struct of their fields, "
                        "while their values come in their own JSON forms (a Timestamp is a string)"}


def handler() -> Any:
    """An object with one method per service call: the reference semantics on Thrift structs."""
    m = thrift_idl.module()
    body = {name: staticmethod(_operation(m, name)) for name in m.Arena.thrift_services}
    return type("ArenaHandler", (), body)()


def _operation(m: Any, method: str) -> Any:
    """request -> reply for `method` from the semantics table (the structs are named as the
    proto messages); an echo for the others. A request the operation cannot read or will not run
    is answered with an application exception, and the connection lives on."""
    from thriftpy2.thrift import TApplicationException

    op = semantics.operation(method)
    if op is None:
        return _echo
    read, compute, field = semantics.attribute_reader(method), op.compute, op.reply
    reply = getattr(m, schema.methods()[method].response)

    def respond(request: Any) -> Any:
        if not _complete(request):
            raise TApplicationException(TApplicationException.PROTOCOL_ERROR,
                                        f"{method}: a field of the request is missing or of the wrong type")
        try:
            result = compute(*read(request))
        except semantics.Refused as refusal:
            raise TApplicationException(TApplicationException.UNKNOWN, str(refusal)) from None
        return reply() if field is None else reply(**{field: result})
    return respond


def _complete(struct: Any) -> bool:
    """Whether the struct and every scalar and struct field of it, nested ones included, are there:
    thriftpy2 reads a field sent with the wrong type as absent (None). An absent list is an empty
    one, as the semantics read it, and is not looked into."""
    if struct is None:
        return False
    for spec in struct.thrift_spec.values():
        value = getattr(struct, spec[1])
        if spec[0] != _LIST and (value is None or hasattr(value, "thrift_spec") and not _complete(value)):
            return False
    return True


def _echo(req: Any) -> Any:
    return req


class ThriftBinary(PythonContender):
    id = "thrift-binary"
    protocol = "thrift-binary"
    wire = "binary"
    description = "thriftpy2 TThreadedServer, binary protocol, buffered transport; IDL generated"
    python_modules = ("thriftpy2",)

    def unsupported(self, method: str) -> str | None:
        if schema.methods()[method].streaming:
            return "Thrift has no streaming calls"
        return super().unsupported(method)

    def user_unsupported(self, method: schema.Method) -> str | None:
        """The IDL is generated from every message the service's calls reach (`codec.thrift_user`)."""
        from thriftpy2.parser.exc import ThriftParserError

        service = schema.user_pool().FindServiceByName(method.service)
        for call in service.methods:
            reason = features.why(schema.Method(call.name, call.input_type.full_name, call.output_type.full_name,
                                                False), _LACKS)
            if reason:
                return reason
        try:
            thrift_user.module(method.service)
        except (ArenaError, ThriftParserError) as error:
            return f"the Thrift IDL generated from {service.file.name} does not load: {error}"
        return None

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        from thriftpy2.server import TThreadedServer
        from thriftpy2.thrift import TProcessor

        user = served.of(services)  # a run of the user's method serves its service alone
        processor = user_processor(user) if user else TProcessor(thrift_idl.module().Arena, handler())
        listener, sock = bounded_listener(host, port)
        server = TThreadedServer(processor, listener,
                                 iprot_factory=protocol_factory(self.wire), itrans_factory=transport_factory())
        announce_ready(sock.getsockname()[1])
        threading.Thread(target=server.serve, daemon=True).start()
        threading.Event().wait()


def bounded_listener(host: str, port: int) -> tuple[TServerSocket, socket.socket]:
    """thriftpy2's server socket, listening already (a port that is taken is a ServerError here, not
    in the serving thread), whose connections are BoundedSockets; and its listening socket."""
    from thriftpy2.transport import TServerSocket

    idle_s = limits.idle_timeout_s()

    # thriftpy2's transport ships no annotations: the ignores below are its untyped calls
    class Listening(TServerSocket):
        def listen(self) -> None:
            pass  # already listening: serve() must not bind again

        def accept(self) -> BoundedSocket:
            return BoundedSocket(super().accept(), idle_s)  # type: ignore[no-untyped-call]

    listener = Listening(host=host, port=port, client_timeout=0,  # type: ignore[no-untyped-call]
                         backlog=limits.listen_backlog())
    try:
        TServerSocket.listen(listener)  # type: ignore[no-untyped-call]
    except OSError as error:
        raise ServerError(f"cannot bind {host}:{port} ({error.strerror}): choose a free port") from None
    sock: socket.socket | None = listener.sock
    assert sock is not None  # listen() made it
    return listener, sock


class BoundedSocket:
    """One connection of the server, read through a budget: thriftpy2 has no string or container
    length limits, so a call is bounded by its bytes instead. A call longer than
    `limits.MAX_REQUEST_BYTES` (counted from the last reply: a Thrift client waits for it), a call
    that has not arrived whole within the idle timeout of the last reply, or a peer that takes no
    reply for that long, closes the connection."""

    def __init__(self, client: Any, idle_timeout_s: float) -> None:
        from thriftpy2.transport import TTransportException

        self._client, self._idle_s, self._budget = client, idle_timeout_s, limits.MAX_REQUEST_BYTES
        self._closed = TTransportException
        frames.set_idle_timeout(client.sock, idle_timeout_s)
        self._watch = contextlib.ExitStack()
        self._deadline = self._watch.enter_context(frames.watched(client.sock, idle_timeout_s))

    def read(self, size: int) -> bytes:
        if self._budget <= 0:
            raise self._closed(self._closed.UNKNOWN, f"a call over {limits.MAX_REQUEST_BYTES} bytes")
        try:
            data: bytes = self._client.read(min(size, self._budget))  # thriftpy2's socket is unannotated
        except OSError as error:  # idle past the timeout (EAGAIN), reset
            raise self._closed(self._closed.TIMED_OUT, str(error)) from None
        self._budget -= len(data)
        return data

    def write(self, data: bytes) -> None:
        self._budget = limits.MAX_REQUEST_BYTES
        try:
            frames.send_within(self._client.sock, data, self._idle_s)
        except OSError as error:
            raise self._closed(self._closed.TIMED_OUT, str(error)) from None
        self._deadline.answered()

    def close(self) -> None:
        self._watch.close()
        self._client.close()

    def __getattr__(self, name: str) -> Any:  # is_open, flush, close: the socket's own
        return getattr(self._client, name)


class ThriftCompact(ThriftBinary):
    id = "thrift-compact"
    protocol = "thrift-compact"
    wire = "compact"
    description = "thriftpy2 TThreadedServer, compact protocol, buffered transport; IDL generated"


class ThriftBinaryClient(Client):
    """thriftpy2's TClient over one connection; reconnects before the next call after a failure."""

    wire = "binary"

    def __init__(self, target: str, method: str, timeout_s: float) -> None:
        super().__init__(target, method, timeout_s)
        info = schema.methods()[method]
        self._request, self._response = schema.descriptor(info.request), schema.descriptor(info.response)
        # arena.proto's IDL, or the one generated from the user's schema
        self._module = thrift_user.module(info.service) if info.user else thrift_idl.module()
        self._service = getattr(self._module, info.service.rpartition(".")[2])
        self._name = info.name
        self._client: Any = None
        self._connect()

    def _connect(self) -> None:
        from thriftpy2.rpc import make_client

        host, _, port = self.target.rpartition(":")
        self._client = make_client(self._service, host.strip("[]"), int(port),
                                   proto_factory=protocol_factory(self.wire), trans_factory=transport_factory(),
                                   timeout=int(self.timeout_s * 1000))
        self._fn = getattr(self._client, self._name)

    def prepare(self, request: dict[str, Any]) -> Any:
        if self.judge is not None:
            return thrift_user.to_struct(self._request, request, self._module)
        return to_struct(self._request, request, self._module)

    def expect(self, response: dict[str, Any]) -> Any:
        return response if self.judge is not None else to_struct(self._response, response, self._module)

    def call(self, request: Any) -> Any:
        if self._client is None:
            self._connect()
        try:
            return self._fn(request)
        except Exception:
            self.close()  # the connection's state is unknown after any failure
            raise

    def matches(self, got: Any, want: Any) -> bool:
        return got == want or replies.equivalent(to_dict(got), to_dict(want))

    def user_reply(self, value: Any) -> Any:
        return value if isinstance(value, dict) else thrift_user.to_canonical(self._response, value)

    def classify(self, error: BaseException) -> str:
        from thriftpy2.thrift import TApplicationException
        from thriftpy2.transport import TTransportException

        if isinstance(error, TApplicationException):
            return "status_application_error"
        if isinstance(error, TTransportException):
            return "timeout" if error.type == TTransportException.TIMED_OUT else "connection"
        return super().classify(error)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class ThriftCompactClient(ThriftBinaryClient):
    wire = "compact"
