"""The predictions seed's service in Python, reading the Redis hash as the seed's servers did.

Its handlers for the grpcio and FastAPI servers (`EXTRA_HANDLERS`, which `python_server.serve` registers
with `contenders.extra_handlers`) serve when the run has a Redis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

from rpcarena.contenders import extra_handlers
from rpcarena.protocol import schema

SERVICE = "predictions.Predictions"


def redis_client(services: Mapping[str, str]) -> Any:
    """A redis-py client to the arena's Redis, or None when this server runs without one."""
    url = services.get("redis")
    if not url:
        return None
    import redis

    return redis.Redis.from_url(url)


def grpc_handler(grpc: Any, store: Any) -> Any:
    """predictions.Predictions/GetPredictions for a grpcio server: HGETALL, sorted by class_name."""
    request_type: type[Message] = schema.message_class("PredictionRequest")
    reply_type: type[Message] = schema.message_class("PredictionResponse")
    prediction = schema.message_class("Prediction")

    def get_predictions(request: Any, context: Any) -> Any:
        entries = store.hgetall(f"predictions:{request.id_client}")
        return reply_type(predictions=[prediction(class_name=k.decode(), value=float(v))
                                       for k, v in sorted(entries.items())])

    return grpc.method_handlers_generic_handler(SERVICE, {"GetPredictions": grpc.unary_unary_rpc_method_handler(
        get_predictions, request_deserializer=request_type.FromString,
        response_serializer=reply_type.SerializeToString)})


def _predictions_endpoint(store: Any) -> Any:
    # As the seed wrote it: a synchronous Redis call inside an async endpoint, the hash as is.
    async def get_predictions(id_client: str) -> Any:
        return store.hgetall(f"predictions:{id_client}")
    return get_predictions


def _add_to_grpcio(server: Any, services: Mapping[str, str]) -> None:
    store = redis_client(services)
    if store is not None:
        import grpc

        server.add_generic_rpc_handlers((grpc_handler(grpc, store),))


def _add_to_fastapi(application: Any, services: Mapping[str, str]) -> None:
    store = redis_client(services)
    if store is not None:
        application.add_api_route("/predictions/{id_client}", _predictions_endpoint(store), methods=["GET"])


EXTRA_HANDLERS: dict[str, extra_handlers.Extra] = {"grpcio": _add_to_grpcio, "fastapi": _add_to_fastapi}
