"""The machine and software a run measured on, recorded with every result."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path
from typing import Any, TypedDict

from rpcarena import __version__, sources

PACKAGES = ("grpcio", "protobuf", "rpyc", "fastapi", "uvicorn", "uvloop", "httptools", "httpx",
            "requests", "hdrhistogram", "thriftpy2", "pydantic")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_revision() -> str | None:
    """The checkout's commit (with -dirty); None from an installed copy, whose folder may lie in
    some other repository."""
    repo = sources.checkout()
    if repo is None:
        return None
    try:
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def versions() -> dict[str, str]:
    found = {}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def cpu_frequency_mhz() -> float | None:
    try:
        values = [float(line.split(":")[1]) for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("cpu MHz")]
    except (OSError, ValueError):
        return None
    return sum(values) / len(values) if values else None


def snapshot() -> dict[str, Any]:
    """Everything about this machine a reader needs to judge the numbers (a plain dict: it is the
    results document's `environment`, which other nodes extend and older files shape differently)."""
    load1, load5, load15 = os.getloadavg()
    return {
        "hostname": platform.node(), "cpu_model": cpu_model(), "cpus": os.cpu_count(),
        "cpus_allowed": sorted(os.sched_getaffinity(0)), "cpu_mhz": cpu_frequency_mhz(),
        "kernel": platform.release(), "os": platform.platform(), "python": platform.python_version(),
        "memory_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
        "loadavg": [load1, load5, load15], "rpcarena": __version__, "git_revision": git_revision(),
        "packages": versions(),
    }


class Load(TypedDict):
    """What can drift during a run."""

    loadavg_1m: float
    cpu_mhz: float | None


def load_now() -> Load:
    """The parts that can drift during a run (load, frequency), for instability warnings."""
    return {"loadavg_1m": os.getloadavg()[0], "cpu_mhz": cpu_frequency_mhz()}
