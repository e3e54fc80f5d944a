"""A user's .proto compiled with grpc_tools' protoc into a descriptor set, in the build cache.

The cache key is the hash of every .proto under the schema's folder, or under each `--import-path`
(what an import can reach), and of protoc's version, so a changed schema or import is compiled
afresh and an unchanged one is read back at once, wherever its folder is. A malformed schema is
a one-line error with protoc's own message.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata, resources
from pathlib import Path

from rpcarena.errors import UsageError
from rpcarena.files import inputs
from rpcarena.protocol import schema

PROTOC_TIMEOUT_S = 60


def descriptor_set(proto: Path, import_paths: Sequence[Path] = ()) -> tuple[bytes, str]:
    """(the serialized FileDescriptorSet of `proto` and everything it imports, the schema's hash);
    imports are found under `import_paths` (`--import-path`, as protoc's -I), else beside `proto`."""
    if not proto.is_file():
        raise UsageError(f"bad --proto {proto}: no such file; give the path of your service's .proto")
    roots = include_roots(proto, import_paths)
    digest = schema_hash(proto, roots)
    cached = cache_folder() / digest / "set.pb"
    if not cached.exists():
        compile_to(proto, roots, cached)
    return cached.read_bytes(), digest


def is_cached(proto: Path, import_paths: Sequence[Path] = ()) -> bool:
    """Whether this schema, as it is now, was compiled before (a second run reuses it)."""
    if not proto.is_file():
        return False
    return (cache_folder() / schema_hash(proto, include_roots(proto, import_paths)) / "set.pb").exists()


def cache_folder() -> Path:
    return schema.cache_dir() / "userschema"


def include_roots(proto: Path, import_paths: Sequence[Path]) -> list[Path]:
    """protoc's -I folders: each --import-path, and the schema's own folder unless one holds it."""
    for path in import_paths:
        if not path.is_dir():
            raise UsageError(f"bad --import-path {path}: no such folder; give the folder your .proto's imports "
                             "are found under, as protoc's -I")
    roots = [p.resolve() for p in import_paths]
    if not any(proto.resolve().is_relative_to(root) for root in roots):
        roots.insert(0, proto.resolve().parent)
    return roots


def schema_hash(proto: Path, roots: Sequence[Path]) -> str:
    """What the compiled set depends on: the schema, every .proto an import can reach under its
    roots, and the compiler's version."""
    holder = next(root for root in roots if proto.resolve().is_relative_to(root))
    named = str(proto.resolve().relative_to(holder))
    digest = hashlib.sha256(named.encode() + metadata.version("grpcio-tools").encode())
    for root in roots:
        digest.update(b"\0root\0")
        for path in sorted(p for p in root.rglob("*.proto") if p.is_file() or p == proto.resolve()):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + inputs.read_bytes(path, "--proto"))
    return digest.hexdigest()[:16]


def compile_to(proto: Path, roots: Sequence[Path], out: Path) -> None:
    """protoc over `proto` with `roots` and the well-known types into the descriptor set `out` (its
    imports included), or one line with protoc's own message."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
    well_known = Path(str(resources.files("grpc_tools") / "_proto"))
    argv = [sys.executable, "-m", "grpc_tools.protoc", *(f"-I{root}" for root in roots), f"-I{well_known}",
            "--include_imports", f"--descriptor_set_out={tmp}", str(proto.resolve())]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=PROTOC_TIMEOUT_S, check=False)
    if done.returncode != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        first = next((line for line in done.stderr.splitlines() if line.strip()), "protoc failed")
        raise UsageError(f"cannot compile {proto}: {first.strip().rstrip('.')}; fix the .proto or add "
                         "--import-path DIR")
    os.replace(tmp, out)
