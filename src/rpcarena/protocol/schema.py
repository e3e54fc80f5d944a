"""The canonical schema, compiled for Python on first use.

proto/arena.proto is compiled with grpcio-tools into a cache folder keyed by the
file's hash, so a changed schema is never served stale code. Methods and message
types are read from the compiled descriptor: the .proto is the one source.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rpcarena import sources
from rpcarena.errors import ArenaError

if TYPE_CHECKING:  # protobuf is imported where it is needed, not when the schema module loads
    from google.protobuf.descriptor import Descriptor
    from google.protobuf.message import Message

SERVICE = "arena.Arena"


def proto_dir() -> Path:
    """Where arena.proto lives: the checkout's proto/, or the installed copy's."""
    return sources.root() / sources.PROTO


def cache_dir() -> Path:
    base = os.environ.get("RPCARENA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rpcarena")
    return Path(base)


PROTOS = ("arena.proto", "predictions.proto")


def _compile(folder: Path, out: Path) -> None:
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    for name in PROTOS:
        args = ["protoc", f"-I{folder}", f"--python_out={tmp}", f"--grpc_python_out={tmp}", str(folder / name)]
        if protoc.main(args) != 0:
            raise ArenaError(f"could not compile {folder / name}: run 'python -m grpc_tools.protoc' on it to see why")
    for produced in tmp.iterdir():
        os.replace(produced, out / produced.name)
    tmp.rmdir()


@cache
def _compiled() -> dict[str, ModuleType]:
    """The pb2 module of every schema file, compiling them if these files were never compiled here."""
    folder = proto_dir()
    digest = hashlib.sha256(b"".join((folder / name).read_bytes() for name in PROTOS)).hexdigest()[:16]
    out = cache_dir() / "python" / digest
    if not (out / "predictions_pb2_grpc.py").exists():
        _compile(folder, out)
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))
    return {name: importlib.import_module(name.replace(".proto", "_pb2")) for name in PROTOS}


def modules() -> tuple[ModuleType, ModuleType]:
    """(arena_pb2, arena_pb2_grpc)."""
    _compiled()
    return importlib.import_module("arena_pb2"), importlib.import_module("arena_pb2_grpc")


def pb2() -> ModuleType:
    return _compiled()["arena.proto"]


def pb2_grpc() -> ModuleType:
    return modules()[1]


@dataclass(frozen=True)
class Method:
    name: str
    request: str
    response: str
    streaming: bool
    service: str = SERVICE
    user: bool = False  # of a user's schema (`add_user`), keyed "package.Service/Method"
    # a stream one way only: "client" (a stream of requests, one reply), "server" (one request, a
    # stream of replies); None for unary and bidirectional methods
    one_way: str | None = None

    @property
    def path(self) -> str:
        """The gRPC path, e.g. /arena.Arena/Invert."""
        return f"/{self.service}/{self.name}"


# A user's schema (`rpcarena run --proto`), once a process has been given it: its descriptor pool
# and the names of its files.
_user: list[tuple[Any, list[str], str]] = []


def add_user(descriptor_set: bytes) -> None:
    """Serve and call the methods of a user's compiled schema (a FileDescriptorSet) beside arena.proto's:
    its methods are keyed "package.Service/Method" and its messages by full name, so they never meet
    the arena's bare names. A process holds one user schema; a second replaces the first."""
    from google.protobuf import descriptor_pb2, descriptor_pool

    pool = descriptor_pool.DescriptorPool()
    files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file
    for file in files:
        pool.Add(file)
    _user[:] = [(pool, [file.name for file in files], base64.b64encode(descriptor_set).decode())]
    methods.cache_clear()
    message_class.cache_clear()


def user_set_b64() -> str | None:
    """The user's compiled schema as a drive spec carries it (`schema_b64`), or None."""
    return _user[0][2] if _user else None


def user_pool() -> Any:
    """The descriptor pool of the user's schema (`add_user`), or None."""
    return _user[0][0] if _user else None


@cache
def methods() -> dict[str, Method]:
    """Every RPC of every service of the schema by name, with its message type names, and those of a
    user's schema (`add_user`) by "package.Service/Method", with full message names."""
    found = {}
    for module in _compiled().values():
        for service in module.DESCRIPTOR.services_by_name.values():
            for m in service.methods:
                found[m.name] = Method(m.name, m.input_type.name, m.output_type.name,
                                       m.client_streaming or m.server_streaming, service.full_name)
    for file in user_files():
        for service in file.services_by_name.values():
            for m in service.methods:
                found[f"{service.full_name}/{m.name}"] = Method(
                    m.name, m.input_type.full_name, m.output_type.full_name,
                    m.client_streaming or m.server_streaming, service.full_name, user=True, one_way=_one_way(m))
    return found


def _one_way(method: Any) -> str | None:
    if method.client_streaming == method.server_streaming:
        return None
    return "client" if method.client_streaming else "server"


def user_files() -> list[Any]:
    """The file descriptors of the user's schema (`add_user`), imports included; none without one."""
    return [pool.FindFileByName(name) for pool, names, _ in _user for name in names]


def user_message(name: str) -> Any:
    """The descriptor of a message of the user's schema by full name, or None (an arena message)."""
    pool = user_pool()
    if pool is None or "." not in name:
        return None
    try:
        return pool.FindMessageTypeByName(name)
    except KeyError:
        return None


@cache
def message_class(name: str) -> type[Message]:
    found = user_message(name)
    if found is not None:
        from google.protobuf import message_factory

        made: type[Message] = message_factory.GetMessageClass(found)  # protobuf ships no annotations
        return made
    for module in _compiled().values():
        if hasattr(module, name):
            compiled: type[Message] = getattr(module, name)
            return compiled
    raise KeyError(f"no message {name!r} in the schema")


def descriptor(name: str) -> Descriptor:
    """The message descriptor of a message type of the schema."""
    found: Descriptor = message_class(name).DESCRIPTOR
    return found
