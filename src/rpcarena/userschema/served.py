"""What a server of a user's method reads from `--schema PATH`: the method, its answers, its cost.

Loading it gives the server process the user's schema (`protocol.schema.add_user`), so the same
message classes serve and call it, and calibrates the handler's CPU work once, at start.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from rpcarena.errors import UsageError
from rpcarena.protocol import schema
from rpcarena.userschema import replies, samples, work
from rpcarena.userschema.workload import NEED


@dataclass(frozen=True)
class Served:
    """The user's method as a server answers it."""

    method: schema.Method
    request_type: type[Message]
    reply_type: type[Message]
    answer: Callable[[Any], Any]  # request message -> reply message, the handler's cost spent first
    # canonical (proto JSON) request -> canonical reply, for the mechanisms that hold dicts or tuples
    answer_canonical: Callable[[dict[str, Any]], dict[str, Any]]
    stream_messages: int = 1  # a server-streaming method: the replies a call's stream carries

    @property
    def key(self) -> str:
        """The method as clients name it, "package.Service/Method"."""
        return f"{self.method.service}/{self.method.name}"


def of(services: Mapping[str, str]) -> Served | None:
    """The user's method this server must serve, or None when the run has none."""
    path = services.get(NEED)
    return _load(path) if path else None


@cache
def _load(path: str) -> Served:
    try:
        served = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"bad --schema {path}: {error}; give the file rpcarena wrote for the run") from None
    schema.add_user(base64.b64decode(served["descriptor_set_b64"]))
    method = schema.methods()[served["method"]]
    request_type, reply_type = schema.message_class(method.request), schema.message_class(method.response)
    respond = replies.responder(served["reply"], served["pairs"], request_type, reply_type)
    cost, calibration = work.handler_cost(served["server_work_us"], served["server_wait_us"])
    print(f"rpcarena: {method.service}/{method.name}: {calibration}", file=sys.stderr, flush=True)

    def answer(request: Any) -> Any:
        cost()
        return respond(request)
    return Served(method, request_type, reply_type, answer,
                  _canonical_answer(served["reply"], served["pairs"], request_type, reply_type, respond, cost),
                  int(served.get("stream_messages", 1)))


def _canonical_answer(mode: str, pairs: list[list[dict[str, Any]]], request_type: type[Message],
                      reply_type: type[Message], respond: Callable[[Any], Any],
                      cost: Callable[[], None]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The answer to a canonical request: a sized reply is one dict and an echo into the same type is the
    request itself, as a handler of those mechanisms would write them; any other reply goes through the
    message (protobuf's own parsing: a cost those mechanisms' servers pay here and gRPC's do not)."""
    if mode == "size":
        fixed = pairs[0][1]

        def sized(request: dict[str, Any]) -> dict[str, Any]:
            cost()
            return fixed
        return sized
    if mode == "echo" and request_type is reply_type:
        def same(request: dict[str, Any]) -> dict[str, Any]:
            cost()
            return request
        return same

    def through(request: dict[str, Any]) -> dict[str, Any]:
        cost()
        return samples.canonical(respond(samples.message_of(request, request_type)))
    return through
