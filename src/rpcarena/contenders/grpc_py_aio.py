"""grpc-py-aio: grpcio's asyncio server (grpc.aio) on one event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from rpcarena.contenders.base import PythonContender, announce_ready
from rpcarena.contenders.grpc_py import bind, handlers, logic, operation_handler, server_options
from rpcarena.protocol import schema, semantics


def _async(handler: Any) -> Any:
    """An asyncio handler; a refused request is answered with INVALID_ARGUMENT and its reason."""
    import grpc

    async def run(request: Any, context: Any) -> Any:
        try:
            return handler(request, context)
        except semantics.Refused as refusal:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(refusal))
    return run


def _stream(method: str = "InvertStream") -> Any:
    answer = operation_handler(method) or (lambda message, context: message)

    async def handler(requests: Any, context: Any) -> Any:
        async for message in requests:
            yield answer(message, context)
    return handler


class GrpcPyAio(PythonContender):
    id = "grpc-py-aio"
    protocol = "grpc"
    description = "grpcio asyncio server (grpc.aio); sync grpcio client"
    python_modules = ("grpc",)

    def serve(self, host: str, port: int, services: Mapping[str, str]) -> None:
        asyncio.run(self._serve(host, port))

    async def _serve(self, host: str, port: int) -> None:
        import grpc

        unary = {name: _async(fn) for name, fn in logic().items()}
        unary.update({m.name: _async(lambda req, ctx: req)
                      for m in schema.methods().values() if m.name not in unary and not m.streaming})
        server = grpc.aio.server(options=server_options())
        server.add_generic_rpc_handlers((handlers(grpc, unary, _stream()),))
        bound = bind(server, host, port)
        await server.start()
        announce_ready(bound)
        await server.wait_for_termination()
