"""gRPC streams of an external target: what the description tells a native driver about them.

A call to a streaming method is one whole stream: the request's messages sent
(a list in --data for a client stream), then every reply read until the server
ends the stream, or until `--stream-messages` replies when it never does (a
health `Watch`). The stream's latency is the call's; each reply message is
timed too. Only a native driver (`--client go`) calls streams.
"""

from __future__ import annotations

from typing import Any

from rpcarena.errors import UsageError


def description(method: Any, stream_messages: str | None) -> dict[str, Any]:
    """`streams` (server, client or bidi; absent for a unary method) and `stream_messages`."""
    kind = {(False, True): "server", (True, False): "client", (True, True): "bidi"}.get(
        (method.client_streaming, method.server_streaming))
    if stream_messages is None:
        return {"streams": kind} if kind else {}
    if kind is None or kind == "client":
        raise UsageError(f"--stream-messages is for methods that stream replies; {method.full_name} does not: "
                         "remove it")
    if not stream_messages.isdigit() or int(stream_messages) < 1:
        raise UsageError(f"bad --stream-messages {stream_messages!r}: give a whole number of replies, 1 or more")
    return {"streams": kind, "stream_messages": int(stream_messages)}
