"""The schema of an external gRPC service, from its .proto or from server reflection.

Either way the result is a serialized FileDescriptorSet (the method's file and
everything it imports): the command resolves it once and ships it to the driver
processes, which load it into a fresh descriptor pool and build message classes
with no generated code.
"""

from __future__ import annotations

import base64
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpcarena.errors import ServerError, UsageError
from rpcarena.process import leftovers
from rpcarena.targets import tls
from rpcarena.userschema import compiled

METHOD_HELP = "write --method package.Service/Method"


@dataclass(frozen=True)
class MethodRef:
    service: str
    name: str

    @property
    def path(self) -> str:
        """The HTTP/2 path gRPC calls."""
        return f"/{self.service}/{self.name}"


def parse_method(text: str) -> MethodRef:
    service, sep, name = text.rpartition("/") if "/" in text else text.rpartition(".")
    if not sep or not service or not name:
        raise UsageError(f"bad --method {text!r}: {METHOD_HELP}")
    return MethodRef(service.lstrip("/"), name)


def from_proto(proto: Path, import_paths: list[Path]) -> bytes:
    """Compile `proto` with grpc_tools.protoc into a descriptor set (a one-line error when it fails),
    as `run --proto` compiles a schema."""
    if not proto.is_file():
        raise UsageError(f"no .proto file {proto}: give the path of the service's .proto with --proto")
    with tempfile.TemporaryDirectory(prefix=leftovers.name("folder", "proto", "")) as tmp:
        out = Path(tmp) / "set.pb"
        compiled.compile_to(proto, compiled.include_roots(proto, import_paths), out)
        return out.read_bytes()


def from_reflection(address: str, service: str, timeout_s: float, secure: dict[str, Any] | None = None) -> bytes:
    """Ask the server for the file that defines `service` and every file it imports (over TLS when
    the target has TLS settings)."""
    import grpc
    from google.protobuf import descriptor_pb2, descriptor_pool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    with tls.grpc_channel(address, secure) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=timeout_s)
        except grpc.FutureTimeoutError:
            raise ServerError(f"no gRPC server answers at {address}: start it or fix --grpc") from None
        database = ProtoReflectionDescriptorDatabase(channel)
        pool = descriptor_pool.DescriptorPool(database)
        try:
            found = pool.FindServiceByName(service)
        except KeyError:
            raise UsageError(f"{address} has no service {service!r} (it has: {_services(database)}): "
                             f"fix --method") from None
        except grpc.RpcError as error:
            raise _reflection_error(address, error) from None
        files = descriptor_pb2.FileDescriptorSet()
        _add_with_imports(found.file, files, set())
        return bytes(files.SerializeToString())


def _services(database: Any) -> str:
    import grpc

    try:
        return ", ".join(s for s in database.get_services() if not s.startswith("grpc.reflection")) or "none"
    except grpc.RpcError:  # only the hint of an error that is raised anyway
        return "unknown"


def _reflection_error(address: str, error: Any) -> Exception:
    import grpc

    if error.code() == grpc.StatusCode.UNIMPLEMENTED:
        return UsageError(f"{address} does not offer server reflection: give the schema with --proto FILE")
    return ServerError(f"server reflection at {address} failed ({error.code().name}: {error.details()}); "
                       "give the schema with --proto FILE")


def _add_with_imports(file: Any, out: Any, seen: set[str]) -> None:
    """Dependencies first, as a descriptor pool needs them."""
    if file.name in seen:
        return
    seen.add(file.name)
    for dependency in file.dependencies:
        _add_with_imports(dependency, out, seen)
    file.CopyToProto(out.file.add())


def pool_of(descriptor_set: bytes) -> Any:
    """A fresh descriptor pool holding every file of a serialized FileDescriptorSet."""
    from google.protobuf import descriptor_pb2, descriptor_pool

    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file:
        pool.Add(file)
    return pool


def find_method(pool: Any, ref: MethodRef) -> Any:
    """The method's descriptor; a one-line error naming what exists when it does not."""
    try:
        service = pool.FindServiceByName(ref.service)
    except KeyError:
        raise UsageError(f"unknown service {ref.service!r} in the schema: {METHOD_HELP}") from None
    method = service.methods_by_name.get(ref.name)
    if method is None:
        names = ", ".join(service.methods_by_name) or "none"
        raise UsageError(f"service {ref.service} has no method {ref.name!r} (it has: {names}): fix --method")
    return method  # a streaming one too: native drivers call streams (rpcarena.targets.streams)


def message_classes(method: Any) -> tuple[Any, Any]:  # protobuf message classes, made at run time
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(method.input_type), message_factory.GetMessageClass(method.output_type)


def encode(descriptor_set: bytes) -> str:
    return base64.b64encode(descriptor_set).decode()


def decode(text: str) -> bytes:
    return base64.b64decode(text)
