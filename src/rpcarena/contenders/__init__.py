"""Contenders: one RPC mechanism in one language, each in a module of its own.

A contender knows how to start its server (as a fresh process) and, for Python
contenders, how a Python client calls it. Native contenders (Go, Rust, Java)
come from the manifests of `workers/*/worker.json` through `rpcarena.contenders.native`.
Adding a Python contender is one module plus one line in `_PYTHON` below.
"""

from __future__ import annotations

import importlib
from functools import cache

from rpcarena import clients
from rpcarena.contenders import native
from rpcarena.contenders.base import Client, Contender
from rpcarena.errors import UsageError
from rpcarena.suggest import did_you_mean

__all__ = ["Client", "Contender", "all_contenders", "client_language", "get", "python_client"]

# id -> "module:Class"; the order is the order of 'rpcarena list'.
_PYTHON = {
    "tcp-raw": "rpcarena.contenders.tcp_raw:TcpRaw",
    "grpc-py": "rpcarena.contenders.grpc_py:GrpcPy",
    "grpc-py-aio": "rpcarena.contenders.grpc_py_aio:GrpcPyAio",
    "rpyc": "rpcarena.contenders.rpyc_py:Rpyc",
    "rpyc-tuple": "rpcarena.contenders.rpyc_py:RpycTuple",
    "rpyc-nodelay": "rpcarena.contenders.rpyc_py:RpycNodelay",
    "rpyc-tuple-nodelay": "rpcarena.contenders.rpyc_py:RpycTupleNodelay",
    "rest-fastapi": "rpcarena.contenders.rest_fastapi:RestFastapi",
    "tagless": "rpcarena.contenders.tagless:Tagless",
    "proto-frames": "rpcarena.contenders.proto_frames:ProtoFrames",
    "typed-json": "rpcarena.contenders.typed_json:TypedJson",
    "thrift-binary": "rpcarena.contenders.thrift_py:ThriftBinary",
    "thrift-compact": "rpcarena.contenders.thrift_py:ThriftCompact",
}

# protocol -> client id -> "module:Class": the Python clients that can call any server of a protocol.
_PYTHON_CLIENTS = {
    "tcp-raw": {"py": "rpcarena.contenders.tcp_raw:TcpRawClient"},
    "grpc": {"py": "rpcarena.contenders.grpc_py:GrpcClient"},
    "rpyc": {"py": "rpcarena.contenders.rpyc_py:RpycClient",
             "py-tuple": "rpcarena.contenders.rpyc_py:RpycTupleClient",
             "py-nodelay": "rpcarena.contenders.rpyc_py:RpycNodelayClient",
             "py-tuple-nodelay": "rpcarena.contenders.rpyc_py:RpycTupleNodelayClient"},
    "http-json": {"py": "rpcarena.contenders.rest_fastapi:HttpxClient",
                  "py-requests": "rpcarena.contenders.rest_fastapi:RequestsClient",
                  "py-newconn": "rpcarena.contenders.rest_fastapi:NewConnectionClient"},
    "tagless": {"py": "rpcarena.contenders.tagless:TaglessClient"},
    "proto-frames": {"py": "rpcarena.contenders.proto_frames:ProtoFramesClient"},
    "typed-json": {"py": "rpcarena.contenders.typed_json:TypedJsonClient"},
    "thrift-binary": {"py": "rpcarena.contenders.thrift_py:ThriftBinaryClient"},
    "thrift-compact": {"py": "rpcarena.contenders.thrift_py:ThriftCompactClient"},
}


def _load(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def all_contenders() -> dict[str, Contender]:
    """Every contender rpcarena knows, available here or not, by id."""
    found: dict[str, Contender] = {cid: _load(path)() for cid, path in _PYTHON.items()}
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


# protocol -> client id -> "module:Class": Python clients of streaming methods (mode "stream").
_PYTHON_STREAM_CLIENTS = {
    "tcp-raw": {"py": "rpcarena.contenders.tcp_raw:TcpRawClient"},
    "grpc": {"py": "rpcarena.contenders.grpc_py:GrpcStreamClient"},
    "http-json": {"py": "rpcarena.contenders.rest_fastapi:WebSocketClient"},
}


# protocol -> client id -> "module:Class": Python clients of a user's one-way streams (a stream a call).
_PYTHON_ONE_WAY_CLIENTS = {"grpc": {"py": "rpcarena.contenders.grpc_py:GrpcOneWayClient"}}


def _clients_of(mode: str) -> dict[str, dict[str, str]]:
    """The Python clients of a workload's mode (`Workload.mode`)."""
    if mode == "stream":
        return _PYTHON_STREAM_CLIENTS
    return _PYTHON_ONE_WAY_CLIENTS if mode in ("client_stream", "server_stream") else _PYTHON_CLIENTS


def python_client(protocol: str, client_id: str = "py", mode: str = "unary") -> type:
    """The Python client class `client_id` for servers speaking `protocol`, calling a method of `mode`."""
    by_id = _clients_of(mode).get(protocol, {})
    if client_id not in by_id:
        known = ", ".join(by_id) or "none"
        raise UsageError(f"no Python client {client_id!r} for protocol {protocol!r} (have: {known})")
    return _load(by_id[client_id])


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
