"""The canonical schema, compiled for Python on first use.

proto/arena.proto is compiled with grpcio-tools into a cache folder keyed by the
file's hash, so a changed schema is never served stale code. Methods and message
types are read from the compiled descriptor: the .proto is the one source.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

from rpcarena.errors import ArenaError

PROTO_DIR = Path(__file__).resolve().parent / "proto"
SERVICE = "arena.Arena"


def proto_dir() -> Path:
    """Where arena.proto lives: packaged beside this module, or the repository's proto/."""
    repo = Path(__file__).resolve().parents[2] / "proto"
    return repo if (repo / "arena.proto").exists() else PROTO_DIR


def cache_dir() -> Path:
    base = os.environ.get("RPCARENA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rpcarena")
    return Path(base)


def _compile(proto: Path, out: Path) -> None:
    from grpc_tools import protoc

    out.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    args = ["protoc", f"-I{proto.parent}", f"--python_out={tmp}", f"--grpc_python_out={tmp}", str(proto)]
    if protoc.main(args) != 0:
        raise ArenaError(f"could not compile {proto}: run 'python -m grpc_tools.protoc' on it to see why")
    for produced in tmp.iterdir():
        os.replace(produced, out / produced.name)
    tmp.rmdir()


@cache
def modules() -> tuple[ModuleType, ModuleType]:
    """(arena_pb2, arena_pb2_grpc), compiling them if this schema was never compiled here."""
    proto = proto_dir() / "arena.proto"
    digest = hashlib.sha256(proto.read_bytes()).hexdigest()[:16]
    out = cache_dir() / "python" / digest
    if not (out / "arena_pb2_grpc.py").exists():
        _compile(proto, out)
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))
    return importlib.import_module("arena_pb2"), importlib.import_module("arena_pb2_grpc")


def pb2() -> ModuleType:
    return modules()[0]


def pb2_grpc() -> ModuleType:
    return modules()[1]


@dataclass(frozen=True)
class Method:
    name: str
    request: str
    response: str
    streaming: bool


@cache
def methods() -> dict[str, Method]:
    """Every RPC of arena.Arena by name, with its message type names."""
    service = pb2().DESCRIPTOR.services_by_name["Arena"]
    return {
        m.name: Method(m.name, m.input_type.name, m.output_type.name,
                       m.client_streaming or m.server_streaming)
        for m in service.methods
    }


def message_class(name: str) -> type:
    return getattr(pb2(), name)
