"""A gRPC client of any unary method, its messages built from a shipped descriptor set."""

from __future__ import annotations

from typing import Any

from rpcarena.contenders.base import Client
from rpcarena.protocol import replies
from rpcarena.targets import checks, protos, tls


class GrpcTargetClient(Client):
    """One channel of its own calling `package.Service/Method`; requests are proto-JSON dicts.

    `description` carries `descriptor_set_b64` and, optionally, `expect_status`: a
    gRPC status name (default OK) that counts as an answer rather than an error;
    `tls` (the `targets.tls` settings) and `metadata` ([key, value] sent with every call).
    """

    multiplexes = True  # HTTP/2 streams: calls from many threads in flight at once on the channel

    def __init__(self, target: str, method: str, timeout_s: float, description: dict[str, Any]) -> None:
        import grpc

        super().__init__(target, method, timeout_s)
        self._grpc = grpc
        ref = protos.parse_method(method)
        found = protos.find_method(protos.pool_of(protos.decode(description["descriptor_set_b64"])), ref)
        self._request_type, self._response_type = protos.message_classes(found)
        self._status = (description.get("expect_status") or "OK").upper()
        self._metadata = tuple((k, v) for k, v in description.get("metadata") or ()) or None
        self._channel = tls.grpc_channel(target, description.get("tls"), [("grpc.use_local_subchannel_pool", 1)])
        self._call = self._channel.unary_unary(ref.path, request_serializer=self._request_type.SerializeToString,
                                               response_deserializer=self._response_type.FromString)

    def prepare(self, request: dict[str, Any]) -> Any:
        from google.protobuf import json_format

        return json_format.ParseDict(request, self._request_type())

    def call(self, request: Any) -> Any:
        try:
            return self._call(request, timeout=self.timeout_s, metadata=self._metadata)
        except self._grpc.RpcError as error:
            if self._status != "OK" and hasattr(error, "code") and error.code().name == self._status:
                return None  # the status asked for with --expect-status: an answer
            raise

    def same(self, got: Any, want: list[Any]) -> bool:
        if self._status != "OK":
            return got is None and not want
        return not want or checks.holds(self.canonical(got), want)

    def explain(self, got: Any, want: list[Any]) -> str:
        if self._status != "OK":
            return f"expected status {self._status}, got a reply"
        return checks.explain(self.canonical(got), want)

    def canonical(self, value: Any) -> Any:
        from google.protobuf import json_format

        return json_format.MessageToDict(value, preserving_proto_field_name=True)

    def classify(self, error: BaseException) -> str:
        return replies.classify_grpc(error, self._grpc) or super().classify(error)

    def describe(self, error: BaseException) -> str:
        """One line about a failed call."""
        if isinstance(error, self._grpc.RpcError) and hasattr(error, "details"):
            details = error.details()
            return f"{error.code().name}: {details}" if details else error.code().name
        return str(error)

    def close(self) -> None:
        self._channel.close()
