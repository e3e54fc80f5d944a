"""The user's method on the Python servers, written as each framework's users write a handler.

- grpcio: a generic handler over message classes built from the descriptor set (no generated
  code): grpc_tools could generate `_pb2` modules per schema, but they are the same message classes
  the descriptor pool builds at run time, and the pool needs no import path per schema.
- FastAPI: a plain `def` endpoint, `POST /package.Service/Method`, with proto JSON bodies (FastAPI
  runs it on its thread pool, as it runs any blocking handler: the server work and wait block).

`python_server.serve` registers both (`EXTRA_HANDLERS`) with `contenders.extra_handlers`, which every server
of those frameworks asks; they add nothing when the run has no user's method (`served.of` is None).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from google.protobuf import json_format

from rpcarena.contenders import extra_handlers
from rpcarena.userschema import served as served_method
from rpcarena.userschema.samples import canonical, message_of


def _add_to_grpcio(server: Any, services: Mapping[str, str]) -> None:
    found = served_method.of(services)
    if found is None:
        return
    import grpc

    def unary(request: Any, context: Any) -> Any:
        return found.answer(request)

    def stream(requests: Any, context: Any) -> Iterator[Any]:
        for request in requests:
            yield found.answer(request)

    def uploaded(requests: Any, context: Any) -> Any:
        """A client stream: its messages read as they come (the last one kept), the last answered."""
        last = None
        for last in requests:  # noqa: B007  (the last one is the point)
            pass
        if last is None:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "an empty stream: no request to answer")
        return found.answer(last)

    def followed(request: Any, context: Any) -> Iterator[Any]:
        """A server stream: the handler's cost once, its reply K times."""
        reply = found.answer(request)
        for _ in range(found.stream_messages):
            yield reply

    kinds = {"client": (grpc.stream_unary_rpc_method_handler, uploaded),
             "server": (grpc.unary_stream_rpc_method_handler, followed),
             None: (grpc.stream_stream_rpc_method_handler, stream)}
    kind, function = kinds[found.method.one_way] if found.method.streaming else (
        grpc.unary_unary_rpc_method_handler, unary)
    handler = kind(function, request_deserializer=found.request_type.FromString,
                   response_serializer=found.reply_type.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(found.method.service,
                                                                          {found.method.name: handler}),))


def _add_to_fastapi(application: Any, services: Mapping[str, str]) -> None:
    found = served_method.of(services)
    if found is None or found.method.streaming:
        return
    import fastapi

    def endpoint(body: dict[str, Any] = fastapi.Body(...)) -> Any:  # noqa: B008  (FastAPI's own idiom)
        try:
            request = message_of(body, found.request_type)
        except json_format.ParseError as error:
            raise fastapi.HTTPException(status_code=400, detail=str(error)) from None
        return canonical(found.answer(request))

    application.add_api_route(f"/{found.method.service}/{found.method.name}", endpoint, methods=["POST"])


EXTRA_HANDLERS: dict[str, extra_handlers.Extra] = {"grpcio": _add_to_grpcio, "fastapi": _add_to_fastapi}
