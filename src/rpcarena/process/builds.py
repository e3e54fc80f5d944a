"""Native workers (Go, Rust, Java, Node.js): their manifests and cached builds.

Each `workers/<language>/worker.json` describes one executable speaking the
worker contract (docs/worker-contract.md). It is built on first use into the
cache, keyed by a hash of its sources and of proto/arena.proto, so an edit
rebuilds and nothing else does. A missing toolchain or a failed build makes the
worker's contenders unavailable, with the reason and the fix
(`rpcarena.contenders.native`). The sources are `rpcarena.sources`: a checkout
builds in place, an installed copy from a copy of them in the build's folder.

A worker whose manifest has `schema_build` also builds a variant per user schema
(`rpcarena run --proto F`): those steps, with `{schema}` the schema's compiled
descriptor set, build into a folder of the worker's build keyed by the set's hash
(`SchemaVariant`), so a second run reuses it and a changed schema builds only a new
variant. The variant runs as the worker does (`run`), from its own `{out}`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import IO, Any

from rpcarena import sources
from rpcarena.contract import ManifestEntry
from rpcarena.errors import UnavailableError
from rpcarena.process.children import signal_group
from rpcarena.process.placement import preexec
from rpcarena.protocol.schema import PROTOS, cache_dir, proto_dir

BUILD_TIMEOUT_S = 1800
# What puts each tool a manifest `requires` on PATH (Debian's go and cargo are too old for go.mod
# and Cargo.lock); a manifest's own `install` (tool -> command) comes first, and a tool named in
# neither gets "install X".
INSTALL = {
    "go": "install Go from https://go.dev/doc/install",
    "protoc": "apt-get install protobuf-compiler",
    "cargo": "install Rust with rustup (curl https://sh.rustup.rs -sSf | sh)",
    "java": "apt-get install default-jdk-headless",
    "mvn": "apt-get install maven",
    "capnp": "apt-get install capnproto",
}
# The build's environment names the tools only some entries need (an entry's `requires`) that are not
# on PATH: the worker builds without those entries, and a build tool that tracks the variable (Rust's
# build.rs) builds again with them once they are installed.
MISSING_TOOLS = "RPCARENA_MISSING_TOOLS"


@dataclass
class Worker:
    """One native worker: its manifest and its cached build."""

    folder: Path
    manifest: dict[str, Any]
    failed: str | None = None

    @property
    def language(self) -> str:
        return str(self.manifest["language"])

    def missing_tools(self) -> list[str]:
        return _missing(self.manifest.get("requires", []))

    def entries_missing(self) -> list[str]:
        """The tools some entries alone need (their `requires`) that are not on PATH: the worker builds
        without those entries (capnp-rust without Cap'n Proto's compiler)."""
        return _missing(sorted({tool for entry in self.entries for tool in entry.requires}))

    @cached_property
    def source_hash(self) -> str:
        digest = hashlib.sha256(b"".join((proto_dir() / name).read_bytes() for name in PROTOS))
        digest.update(json.dumps(self.manifest, sort_keys=True).encode())
        if missing := self.entries_missing():  # built without those entries; once installed, a new build
            digest.update(json.dumps(missing).encode())
        for path in sources.files(self.folder, self.manifest):
            digest.update(str(path.relative_to(self.folder)).encode())
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]

    @property
    def build_dir(self) -> Path:
        return cache_dir() / "build" / f"{self.language}-{self.source_hash}"

    @property
    def staged(self) -> Path | None:
        """Where an installed copy builds: a copy of its tree in the build's folder, since
        site-packages is no place for build output (and may be read-only). None in a checkout."""
        return self.build_dir / "src" if sources.installed() else None

    @property
    def workdir(self) -> Path:
        """The folder the build steps run in."""
        tree = self.staged
        return self.folder if tree is None else tree / self.folder.relative_to(sources.root())

    def _expand(self, arg: str) -> str:
        out = self.build_dir / f"{self.language}-worker"
        return (arg.replace("{out}", str(out)).replace("{repo}", str(self.staged or sources.root()))
                .replace("{build}", str(self.build_dir)))

    @property
    def builds_schemas(self) -> bool:
        """Whether this worker builds a variant per user schema (its manifest's `schema_build`)."""
        return bool(self.manifest.get("schema_build"))

    def for_schema(self, descriptor_set: bytes | None) -> Worker:
        """The worker that serves and calls the user's schema `descriptor_set` (this one without it)."""
        if descriptor_set is None or not self.builds_schemas:
            return self
        digest = hashlib.sha256(descriptor_set).hexdigest()[:16]
        return _variant(self, digest, descriptor_set)

    def artifact(self) -> Path:
        return Path(self._expand(self.manifest.get("artifact", "{out}")))

    def unavailable(self) -> str | None:
        """Why this worker cannot run here, with the commands that fix it; None if it can."""
        return _needs(self.missing_tools(), self.manifest.get("install", {})) or self.failed

    def entry_unavailable(self, entry: ManifestEntry) -> str | None:
        """Why this entry cannot run here: a tool it alone needs, or why the worker cannot."""
        return _needs(_missing(entry.requires), self.manifest.get("install", {})) or self.unavailable()

    def built(self) -> bool:
        """Whether the build of these sources is in the cache already."""
        return self.artifact().exists() and (self.build_dir / "OK").exists()

    def ensure_built(self, on_wait: Callable[[str], None] | None = None) -> float:
        """Build once per source hash; concurrent callers wait on a lock, and say so through `on_wait`
        ('waiting for another rpcarena's Rust build (pid 123)') when another process holds it. Returns
        the seconds spent waiting for that other build, which are not this build's time."""
        if self.built():
            return 0.0
        reason = self.unavailable()
        if reason:
            raise UnavailableError(f"{self.language} worker unavailable: {reason}")
        self.build_dir.mkdir(parents=True, exist_ok=True)
        waited = 0.0
        with ExitStack() as held:
            for path in self.lock_paths():
                waited += _lock(held.enter_context(open(path, "a+")), self.language, on_wait)
            if not (self.build_dir / "OK").exists():
                self._build()
        return waited

    def lock_paths(self) -> list[Path]:
        """The locks a build holds, always taken in this order."""
        return [self.build_dir / "lock"]

    def _build(self) -> None:
        log = self.build_dir / "build.log"
        if self.staged:
            sources.copy(sources.root(), self.staged)
        with open(log, "w") as out:
            for step in self._steps():
                argv = [self._expand(a) for a in step]
                try:
                    returncode = run_step(argv, self.workdir, out, self._environment())
                except (OSError, subprocess.TimeoutExpired) as error:
                    return self._fail(f"build step {argv[0]} failed ({error}); see {log}")
                if returncode != 0:
                    return self._fail(f"build failed (exit {returncode} in {' '.join(argv[:3])}); see {log}")
        if not self.artifact().exists():
            return self._fail(f"build produced no {self.artifact()}; see {log}")
        (self.build_dir / "OK").write_text("ok\n")
        if self.staged:  # the artifact is out; a failed build keeps its tree to look into
            shutil.rmtree(self.staged, ignore_errors=True)

    def _steps(self) -> list[list[str]]:
        return list(self.manifest["build"])

    def _environment(self) -> dict[str, str]:
        """The build's environment: this process's, and `MISSING_TOOLS` when an entry's tool is missing
        (only then, so a build by hand, without it, finds the same state and rebuilds nothing)."""
        missing = self.entries_missing()
        return {**os.environ, MISSING_TOOLS: " ".join(missing)} if missing else dict(os.environ)

    def _fail(self, reason: str) -> None:
        # Remembered by this process only: a failure can be the machine's (network, disk),
        # so another run, or another checkout with the same sources, builds again.
        self.failed = reason
        raise UnavailableError(f"{self.language} worker unavailable: {reason}")

    def argv(self, *args: str) -> list[str]:
        self.ensure_built()
        return [self._expand(a) for a in self.manifest["run"]] + list(args)

    @cached_property
    def entries(self) -> list[ManifestEntry]:
        """The manifest's contenders, typed (a tool such as the delay line has none)."""
        return [ManifestEntry.from_json(entry) for entry in self.manifest.get("contenders", [])]

    def client_entries(self, protocol: str) -> dict[str, ManifestEntry]:
        """This worker's clients of `protocol`, by the id users pass to --client.

        The client of a contender that also serves goes by the language (`--client go`, the
        first such contender of the protocol); a client-only entry (`"server": false`, such as
        the lean load client `rust-h1`) goes by its own id.
        """
        found: dict[str, ManifestEntry] = {}
        for entry in self.entries:
            if entry.protocol == protocol and entry.client:
                found.setdefault(self.language if entry.server else entry.id, entry)
        return found


@dataclass
class SchemaVariant(Worker):
    """A worker built with a user's schema (its manifest's `schema_build`), in a folder of the base
    build's keyed by the descriptor set's hash; `{schema}` in a step is that set, written there, and
    `{base}` the base build's artifact (built first), for a variant that extends it (Java's jar)."""

    base: Worker | None = None
    digest: str = ""
    descriptor_set: bytes = b""

    @property
    def build_dir(self) -> Path:
        assert self.base is not None
        return self.base.build_dir / f"schema-{self.digest}"

    @property
    def schema_file(self) -> Path:
        return self.build_dir / "set.pb"

    def _expand(self, arg: str) -> str:
        assert self.base is not None
        expanded = super()._expand(arg).replace("{schema}", str(self.schema_file))
        return expanded.replace("{base}", str(self.base.artifact()))

    def lock_paths(self) -> list[Path]:
        """The base's lock too: in a checkout the base and every variant build in one work tree
        (cargo's one `target/`, whose binary a step then copies), so no two of them may interleave."""
        assert self.base is not None
        return [*self.base.lock_paths(), *super().lock_paths()]

    def ensure_built(self, on_wait: Callable[[str], None] | None = None) -> float:
        """A variant that extends its base (`{base}` in a step) has the base built first, before this
        build takes its locks: they hold the base's too, and a second flock of one file in one process
        would wait for itself forever."""
        assert self.base is not None
        waited = 0.0
        if not self.built() and any("{base}" in arg for step in self.manifest["schema_build"] for arg in step):
            waited = self.base.ensure_built(on_wait)  # raises as the base's own build does when it fails
        return waited + super().ensure_built(on_wait)

    def _steps(self) -> list[list[str]]:
        if not self.schema_file.exists():
            tmp = self.schema_file.with_name("set.pb.tmp")
            tmp.write_bytes(self.descriptor_set)
            tmp.replace(self.schema_file)
        return list(self.manifest["schema_build"])


def run_step(argv: list[str], cwd: Path, out: IO[str], env: dict[str, str]) -> int:
    """One build step's exit code. It runs in a process group of its own, which dies with rpcarena and
    is killed whole when the step does not end normally (a timeout, Ctrl-C, SIGTERM): killing the step
    alone left the compilers cargo or mvn had started compiling on."""
    step = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env, preexec_fn=preexec(None))
    try:
        return step.wait(BUILD_TIMEOUT_S)
    except BaseException:
        signal_group(step, signal.SIGKILL)
        step.wait()
        raise


def _missing(tools: list[Any]) -> list[str]:
    return [str(tool) for tool in tools if shutil.which(str(tool)) is None]


def _needs(missing: list[str], own: dict[str, str] | None = None) -> str | None:
    """'needs capnp (not found on PATH): apt-get install capnproto; then rpcarena build', or None;
    `own`: a manifest's own fix for a tool (its "install"), before the usual one."""
    if not missing:
        return None
    fixes = "; ".join((own or {}).get(tool) or INSTALL.get(tool, f"install {tool}") for tool in missing)
    return f"needs {', '.join(missing)} (not found on PATH): {fixes}; then rpcarena build"


_VARIANTS: dict[tuple[Path, str], SchemaVariant] = {}
LANGUAGES = {"go": "Go", "rust": "Rust", "java": "Java", "node": "Node.js"}  # as a sentence names them


def _lock(held: IO[str], language: str, on_wait: Callable[[str], None] | None) -> float:
    """Take a build's lock, leaving this process's pid in it; when another process holds it, say
    whose build is awaited and return how long the wait took (a build lock is held for minutes)."""
    waited = 0.0
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.seek(0)
        holder = held.read().strip()
        if on_wait is not None:
            pid = f" (pid {holder})" if holder.isdigit() else ""
            on_wait(f"waiting for another rpcarena's {LANGUAGES.get(language, language)} build{pid}")
        started = time.monotonic()
        fcntl.flock(held, fcntl.LOCK_EX)
        waited = time.monotonic() - started
    held.seek(0)
    held.truncate()
    held.write(str(os.getpid()))
    held.flush()
    return waited


def _variant(base: Worker, digest: str, descriptor_set: bytes) -> SchemaVariant:
    """One variant object per (worker, schema) in a process, so a failed build is remembered once."""
    key = (base.build_dir, digest)
    if key not in _VARIANTS:
        _VARIANTS[key] = SchemaVariant(base.folder, base.manifest, base=base, digest=digest,
                                       descriptor_set=descriptor_set)
    return _VARIANTS[key]


@cache
def workers() -> dict[str, Worker]:
    """The native workers of this checkout or installed copy, by language."""
    found = {}
    for manifest in sorted((sources.root() / "workers").glob("*/worker.json")):
        data = json.loads(manifest.read_text())
        found[data["language"]] = Worker(manifest.parent, data)
    return found


@cache
def tool(name: str) -> Worker:
    """A program of this repository that is not a worker (`delayline/`), built the same way from
    its `build.json`: on first use, cached by the hash of its sources."""
    folder = sources.root() / name
    return Worker(folder, json.loads((folder / "build.json").read_text()))
