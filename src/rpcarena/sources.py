"""rpcarena's sources beyond Python: the schema (proto/) and what the native workers build from.

A checkout has them at the repository's root. An installed wheel carries the same tree inside
the package (`rpcarena/_tree`, put there by setup.py), laid out the same way, because each build
finds the schema at `../../proto` from its own folder (gen.sh, build.rs, pom.xml) and the Go tests
walk up to `proto/`. What ships of a worker is what its manifest's `sources` name, the very files
its build's cache key hashes: an installed copy builds what a checkout builds, and reuses the
checkout's builds on the same machine.

Only the standard library and `rpcarena.errors`: setup.py loads this module to fill the wheel,
before rpcarena's dependencies exist.
"""

from __future__ import annotations

import glob
import json
import shutil
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from rpcarena.errors import ArenaError

TREE = "_tree"
PROTO = "proto"
MANIFESTS = ("workers/*/worker.json", "*/build.json")  # a worker's, or a tool's such as delayline/
BUILD_OUTPUT = frozenset({"target", "bin"})  # top-level folders builds write beside their sources


def _package() -> Path:
    return Path(str(resources.files("rpcarena")))


@cache
def root() -> Path:
    """The folder holding proto/, workers/ and delayline/: the installed tree, else the checkout."""
    for candidate in (_package() / TREE, _package().parents[1]):
        if (candidate / PROTO / "arena.proto").is_file():
            return candidate
    raise ArenaError(f"rpcarena's schema (proto/arena.proto) is missing beside {_package()}: "
                     "reinstall rpcarena from a wheel built with its setup.py (pip install --force-reinstall)")


def installed() -> bool:
    """Whether rpcarena runs from an installed copy, whose sources must not be built in place."""
    return root() == _package() / TREE


def checkout() -> Path | None:
    """The repository rpcarena runs from, if it runs from one."""
    return None if installed() else root()


def files(folder: Path, manifest: Mapping[str, Any]) -> list[Path]:
    """The files the build of `folder` reads, as its manifest's `sources` name them (never its output)."""
    found: set[str] = set()
    for pattern in manifest.get("sources", ["**/*"]):
        found.update(glob.glob(str(folder / pattern), recursive=True))
    paths = (Path(name) for name in sorted(found))
    # only the top level: a source folder named `target` (the target drivers) is source, not output
    return [path for path in paths if path.is_file() and path.relative_to(folder).parts[0] not in BUILD_OUTPUT]


def shipped(base: Path) -> list[Path]:
    """Every file of the tree under `base`, relative to it: proto/, and each build's manifest and sources."""
    paths = [path for path in (base / PROTO).rglob("*") if path.is_file()]
    for manifest in sorted(path for pattern in MANIFESTS for path in base.glob(pattern)):
        paths += [manifest, *files(manifest.parent, json.loads(manifest.read_text()))]
    return sorted({path.relative_to(base) for path in paths})


def copy(base: Path, target: Path) -> None:
    """The tree under `base` copied to `target` (replacing it), laid out the same way."""
    shutil.rmtree(target, ignore_errors=True)
    for name in shipped(base):
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(base / name, target / name)
