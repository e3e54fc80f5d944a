"""A user's .proto compiled with grpc_tools' protoc into a descriptor set, in the build cache.

The cache key is the hash of every .proto under the schema's folder (what an import can reach)
and of protoc's version, so a changed schema or import is compiled afresh and an unchanged one is
read back at once. A malformed schema is a one-line error with protoc's own message.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib import metadata, resources
from pathlib import Path

from rpcarena.errors import UsageError
from rpcarena.files import inputs
from rpcarena.protocol import schema

PROTOC_TIMEOUT_S = 60


def descriptor_set(proto: Path) -> tuple[bytes, str]:
    """(the serialized FileDescriptorSet of `proto` and everything it imports, the schema's hash)."""
    if not proto.is_file():
        raise UsageError(f"bad --proto {proto}: no such file; give the path of your service's .proto")
    digest = schema_hash(proto)
    cached = cache_folder() / digest / "set.pb"
    if not cached.exists():
        _compile(proto, cached)
    return cached.read_bytes(), digest


def is_cached(proto: Path) -> bool:
    """Whether this schema, as it is now, was compiled before (a second run reuses it)."""
    return proto.is_file() and (cache_folder() / schema_hash(proto) / "set.pb").exists()


def cache_folder() -> Path:
    return schema.cache_dir() / "userschema"


def schema_hash(proto: Path) -> str:
    """What the compiled set depends on: the schema, its neighbours, the compiler's version."""
    folder = proto.resolve().parent
    digest = hashlib.sha256(proto.name.encode() + metadata.version("grpcio-tools").encode())
    for path in sorted(p for p in folder.rglob("*.proto") if p.is_file() or p == proto.resolve()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + inputs.read_bytes(path, "--proto"))
    return digest.hexdigest()[:16]


def _compile(proto: Path, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"set.pb.tmp{os.getpid()}")
    well_known = Path(str(resources.files("grpc_tools") / "_proto"))
    argv = [sys.executable, "-m", "grpc_tools.protoc", f"-I{proto.resolve().parent}", f"-I{well_known}",
            "--include_imports", f"--descriptor_set_out={tmp}", str(proto.resolve())]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=PROTOC_TIMEOUT_S, check=False)
    if done.returncode != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        first = next((line for line in done.stderr.splitlines() if line.strip()), "protoc failed")
        raise UsageError(f"cannot compile {proto}: {first.strip().rstrip('.')}; fix the .proto")
    os.replace(tmp, out)
