"""A user's schema and samples as a `Workload`, registered beside the seeds' own.

`UserWorkload` is what the command line said (recorded in the run's configuration, so --resume
builds the same workload); `build` compiles the schema, reads or generates the requests, works out
every expected reply, and registers the workload. Servers learn the schema, the replies and the
handler's cost from one file, `--schema PATH`, provided for the run as a backing service is
(`Need`), so every server is told it the way it is told a Redis.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from rpcarena.errors import UsageError
from rpcarena.process import leftovers
from rpcarena.protocol import schema
from rpcarena.userschema import compiled, fill, replies, samples, values
from rpcarena.workloads import WORKLOADS, Need, Workload, register

PREFIX = "user"
NEED = "schema"  # servers get `--schema PATH`: the served method, its replies and the handler's cost
METHOD_HELP = "write --method package.Service/Method, as the .proto names them"
STREAM_MESSAGES = 10
MAX_STREAM_MESSAGES = 10_000
# How a call of each kind of method is made (`Workload.mode`): a bidirectional method exchanges one
# message each way on a long-lived stream; a one-way stream is a stream a call, of K messages one way
MODES = {None: "stream", "client": "client_stream", "server": "server_stream"}


@dataclass(frozen=True)
class UserWorkload:
    """The options of a workload from the user's schema, as typed (sizes and durations parsed)."""

    proto: str
    method: str
    data_file: str | None = None
    data: str | None = None
    fill: str | None = None
    reply: str = "echo"  # or "file" (reply_file), "size" (reply_size_bytes)
    reply_file: str | None = None
    reply_size_bytes: int | None = None
    server_work_us: float = 0.0
    server_wait_us: float = 0.0
    stream_messages: int = STREAM_MESSAGES  # a one-way stream's messages a call
    import_paths: list[str] = field(default_factory=list)  # --import-path: protoc's -I for the schema's imports

    def __post_init__(self) -> None:
        given = [name for name, value in (("--data-file", self.data_file), ("--data", self.data),
                                          ("--fill", self.fill)) if value is not None]
        if len(given) != 1:
            raise UsageError(f"--proto needs its requests from one of --data-file, --data or --fill "
                             f"(given: {', '.join(given) or 'none'}): give one")
        if self.reply not in replies.MODES:
            raise UsageError(f"bad --reply {self.reply!r}: use echo, or give --reply-file F or --reply-size 4KB")
        if self.server_work_us < 0 or self.server_wait_us < 0:
            raise UsageError("bad --server-work/--server-wait: give a duration such as 300us or 2ms")
        if not 1 <= self.stream_messages <= MAX_STREAM_MESSAGES:
            raise UsageError(f"bad --stream-messages {self.stream_messages}: give 1 to {MAX_STREAM_MESSAGES:,}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def method_key(text: str) -> str:
    """'pkg.Service/Call' (or 'pkg.Service.Call') -> the key `schema.methods()` holds it by."""
    service, sep, name = text.rpartition("/") if "/" in text else text.rpartition(".")
    if not sep or not service or not name:
        raise UsageError(f"bad --method {text!r}: {METHOD_HELP}")
    return f"{service.lstrip('/')}/{name}"


def build(options: UserWorkload) -> Workload:
    """The user's workload, registered as "user.package.Service.Method" (replacing one built before)."""
    descriptor_set, digest = compiled.descriptor_set(Path(options.proto), [Path(p) for p in options.import_paths])
    schema.add_user(descriptor_set)
    key = method_key(options.method)
    method = _method(key, options.method)
    request_type, reply_type = schema.message_class(method.request), schema.message_class(method.response)
    requests, source = _requests(options, request_type)
    expected = replies.expected(options.reply, requests, request_type, reply_type, _replies(options, reply_type))
    pairs = [[q, r] for q, r in zip(requests, expected, strict=True)]
    if options.reply == "file":
        replies.check_answerable(pairs, request_type)
    served = {"method": key, "descriptor_set_b64": base64.b64encode(descriptor_set).decode(),
              "reply": replies.served_mode(options.reply, request_type, reply_type),
              "pairs": pairs, "server_work_us": options.server_work_us, "server_wait_us": options.server_wait_us,
              "stream_messages": options.stream_messages}
    workload_id = f"{PREFIX}.{key.replace('/', '.')}"
    description = (f"{Path(options.proto).name} {key}: {len(requests)} request(s) from {source}, "
                   f"reply {_reply_text(options)}{_stream_text(method, options)}, schema {digest}")
    calls, answers = _calls(method, requests, expected, options.stream_messages)
    values.remember(method, lambda: _messages(requests, request_type, expected, reply_type))
    WORKLOADS.pop(workload_id, None)  # built again with other options (a benchmark's second configuration)
    register(workload_id, key, description, lambda: calls, mode=MODES[method.one_way] if method.streaming else "unary",
             needs=(Need(NEED, lambda given, host, prefix, logs: ServedFile(served), document=True),),
             reference=_reference(calls, answers))
    return WORKLOADS[workload_id]


def _messages(requests: list[dict[str, Any]], request_type: type[Message], expected: list[dict[str, Any]],
              reply_type: type[Message]) -> Iterator[tuple[str, int, Message]]:
    """Each request and each expected reply as a message, with its sample's number (from 1)."""
    for n, (request, reply) in enumerate(zip(requests, expected, strict=True), 1):
        yield "request", n, samples.message_of(request, request_type)
        yield "reply", n, samples.message_of(reply, reply_type)


def _calls(method: schema.Method, requests: list[dict[str, Any]], expected: list[dict[str, Any]],
           k: int) -> tuple[list[Any], list[Any]]:
    """What each call sends and gets back: a request and its reply; for a client-streaming method,
    K requests in turn from the samples and the reply to the last (the server answers the stream's
    last message); for a server-streaming one, a request and its reply K times."""
    if method.one_way == "client":
        n = len(requests)
        return [[requests[(i + j) % n] for j in range(k)] for i in range(n)], [expected[(i + k - 1) % n]
                                                                               for i in range(n)]
    if method.one_way == "server":
        return requests, [[reply] * k for reply in expected]
    return requests, expected


def _stream_text(method: schema.Method, options: UserWorkload) -> str:
    if method.one_way is None:
        return ""
    return f", {options.stream_messages} {'requests' if method.one_way == 'client' else 'replies'} a call's stream"


def _method(key: str, typed: str) -> schema.Method:
    found = schema.methods().get(key)
    if found is None or not found.user:
        names = ", ".join(k for k, m in schema.methods().items() if m.user) or "none"
        raise UsageError(f"bad --method {typed!r}: the schema has no such method (it has: {names}); {METHOD_HELP}")
    return found


def _requests(options: UserWorkload, request_type: type[Message]) -> tuple[list[dict[str, Any]], str]:
    """The requests and where they came from, as the results name them."""
    if options.data_file is not None:
        return samples.from_file(Path(options.data_file), request_type, "--data-file"), Path(options.data_file).name
    if options.data is not None:
        return samples.from_text(options.data, request_type, "--data"), "--data"
    spec = fill.parse(options.fill or "")
    generated = fill.requests(spec, request_type.DESCRIPTOR)
    return [samples.parsed(json.dumps(r), request_type, "--fill", "--fill") for r in generated], f"--fill {spec.text}"


def _replies(options: UserWorkload, reply_type: type[Message]) -> list[dict[str, Any]]:
    if options.reply == "file":
        if options.reply_file is None:
            raise UsageError("--reply file needs --reply-file F.jsonl")
        return samples.from_file(Path(options.reply_file), reply_type, "--reply-file")
    if options.reply == "size":
        return [replies.sized(reply_type, options.reply_size_bytes or 0)]
    return []


def _reply_text(options: UserWorkload) -> str:
    if options.reply == "file":
        return f"from {Path(options.reply_file or '').name}"
    return f"of {options.reply_size_bytes}B" if options.reply == "size" else "echo"


def _reference(requests: list[Any], expected: list[Any]) -> Any:
    """request -> its expected reply (requests are cycled, so their replies are looked up); a one-way
    stream's call: its requests -> the reply, or its request -> the replies."""
    table = {json.dumps(q, sort_keys=True): r for q, r in zip(requests, expected, strict=True)}
    return lambda request: table[json.dumps(request, sort_keys=True)]


def adopt(served_text: str) -> None:
    """This process takes the user's schema a served file carries: a cluster node does, before it
    starts a server, since a native server is the worker's variant built for that schema."""
    schema.add_user(base64.b64decode(json.loads(served_text)["descriptor_set_b64"]))


class ServedFile:
    """The file servers read with `--schema PATH`, in a folder of its own removed at the run's end."""

    def __init__(self, served: dict[str, Any]) -> None:
        self.served = served
        self.url: str | None = None
        self._folder: str | None = None

    def __enter__(self) -> ServedFile:
        self._folder = tempfile.mkdtemp(prefix=leftovers.name("folder", "schema", ""))
        path = Path(self._folder) / "served.json"
        path.write_text(json.dumps(self.served))
        os.chmod(self._folder, 0o755)  # servers may run as another user (across a link's namespace)
        path.chmod(0o644)
        self.url = str(path)
        return self

    def lost(self) -> str | None:
        return None

    def __exit__(self, *exc: object) -> None:
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
