"""The predictions seed's service in Python, reading the Redis hash as the seed's servers did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    request_type = schema.message_class("PredictionRequest")
    reply_type = schema.message_class("PredictionResponse")
    prediction = schema.message_class("Prediction")

    def get_predictions(request: Any, context: Any) -> Any:
        entries = store.hgetall(f"predictions:{request.id_client}")
        return reply_type(predictions=[prediction(class_name=k.decode(), value=float(v))
                                       for k, v in sorted(entries.items())])

    return grpc.method_handlers_generic_handler(SERVICE, {"GetPredictions": grpc.unary_unary_rpc_method_handler(
        get_predictions, request_deserializer=request_type.FromString,
        response_serializer=reply_type.SerializeToString)})
