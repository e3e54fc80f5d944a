"""Contenders: one RPC mechanism in one language, each in a module of its own.

A contender knows how to start its server (as a fresh process) and, for Python
contenders, how a Python client calls it. Native contenders (Go, Rust, Java)
come from the manifests of `workers/*/worker.json` through `rpcarena.contenders.native`.
Adding a Python contender is one module plus, below, its import and its line in `_PYTHON` (and in
`_PYTHON_CLIENTS` for a new protocol).
"""

from __future__ import annotations

from functools import cache

from rpcarena import clients
from rpcarena.contenders import (
    grpc_py,
    grpc_py_aio,
    native,
    proto_frames,
    rest_fastapi,
    rpyc_py,
    tagless,
    tcp_raw,
    thrift_py,
    typed_json,
)
from rpcarena.contenders.base import Client, Contender, PythonContender
from rpcarena.errors import UsageError
from rpcarena.suggest import did_you_mean

__all__ = ["Client", "Contender", "all_contenders", "client_language", "get", "python_client"]

# The classes themselves, their modules imported above: each module imports its RPC library only when
# it serves or calls, so all of them cost a process ~40 ms of project code and the standard asyncio.

# id -> server; the order is the order of 'rpcarena list'.
_PYTHON: dict[str, type[PythonContender]] = {
    "tcp-raw": tcp_raw.TcpRaw,
    "grpc-py": grpc_py.GrpcPy,
    "grpc-py-aio": grpc_py_aio.GrpcPyAio,
    "rpyc": rpyc_py.Rpyc,
    "rpyc-tuple": rpyc_py.RpycTuple,
    "rpyc-nodelay": rpyc_py.RpycNodelay,
    "rpyc-tuple-nodelay": rpyc_py.RpycTupleNodelay,
    "rest-fastapi": rest_fastapi.RestFastapi,
    "tagless": tagless.Tagless,
    "proto-frames": proto_frames.ProtoFrames,
    "typed-json": typed_json.TypedJson,
    "thrift-binary": thrift_py.ThriftBinary,
    "thrift-compact": thrift_py.ThriftCompact,
}

# protocol -> client id -> client: the Python clients that can call any server of a protocol.
_PYTHON_CLIENTS: dict[str, dict[str, type[Client]]] = {
    "tcp-raw": {"py": tcp_raw.TcpRawClient},
    "grpc": {"py": grpc_py.GrpcClient},
    "rpyc": {"py": rpyc_py.RpycClient, "py-tuple": rpyc_py.RpycTupleClient, "py-nodelay": rpyc_py.RpycNodelayClient,
             "py-tuple-nodelay": rpyc_py.RpycTupleNodelayClient},
    "http-json": {"py": rest_fastapi.HttpxClient, "py-requests": rest_fastapi.RequestsClient,
                  "py-newconn": rest_fastapi.NewConnectionClient},
    "tagless": {"py": tagless.TaglessClient},
    "proto-frames": {"py": proto_frames.ProtoFramesClient},
    "typed-json": {"py": typed_json.TypedJsonClient},
    "thrift-binary": {"py": thrift_py.ThriftBinaryClient},
    "thrift-compact": {"py": thrift_py.ThriftCompactClient},
}


@cache
def all_contenders() -> dict[str, Contender]:
    """Every contender rpcarena knows, available here or not, by id."""
    found: dict[str, Contender] = {cid: server() for cid, server in _PYTHON.items()}
    for contender in native.contenders():
        found.setdefault(contender.id, contender)
    return found


def get(contender_id: str) -> Contender:
    try:
        return all_contenders()[contender_id]
    except KeyError:
        pass
    if any(c.id == contender_id for c in native.clients_only()):
        raise UsageError(f"{contender_id!r} is a client without a server: pass it as --client {contender_id}")
    hint = did_you_mean(contender_id, all_contenders())
    raise UsageError(f"unknown contender {contender_id!r}{hint}: run 'rpcarena list' to see the contenders")


# protocol -> client id -> client: Python clients of streaming methods (mode "stream").
_PYTHON_STREAM_CLIENTS: dict[str, dict[str, type[Client]]] = {
    "tcp-raw": {"py": tcp_raw.TcpRawClient},
    "grpc": {"py": grpc_py.GrpcStreamClient},
    "http-json": {"py": rest_fastapi.WebSocketClient},
}


# protocol -> client id -> client: Python clients of a user's one-way streams (a stream a call).
_PYTHON_ONE_WAY_CLIENTS: dict[str, dict[str, type[Client]]] = {"grpc": {"py": grpc_py.GrpcOneWayClient}}


def _clients_of(mode: str) -> dict[str, dict[str, type[Client]]]:
    """The Python clients of a workload's mode (`Workload.mode`)."""
    if mode == "stream":
        return _PYTHON_STREAM_CLIENTS
    return _PYTHON_ONE_WAY_CLIENTS if mode in ("client_stream", "server_stream") else _PYTHON_CLIENTS


def python_client(protocol: str, client_id: str = "py", mode: str = "unary") -> type[Client]:
    """The Python client class `client_id` for servers speaking `protocol`, calling a method of `mode`."""
    by_id = _clients_of(mode).get(protocol, {})
    if client_id not in by_id:
        known = ", ".join(by_id) or "none"
        raise UsageError(f"no Python client {client_id!r} for protocol {protocol!r} (have: {known})")
    return by_id[client_id]


def python_client_ids(protocol: str, mode: str = "unary") -> list[str]:
    return list(_clients_of(mode).get(protocol, {}))


def client_language(client_id: str) -> str:
    """The language of a --client id: py for a Python client, a native client's worker's language
    (rust-h1 -> rust), else the language its id names (go). Each cell records it, so that analysis
    needs no registry."""
    if clients.is_python(client_id):
        return clients.PYTHON
    native_language = next((c.language for c in native.clients_only() if c.id == client_id), None)
    return native_language or clients.language_named(client_id)
