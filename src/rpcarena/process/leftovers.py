"""What a run makes in the system besides its results: registered, removed on every way out, swept.

Everything rpcarena creates outside its own files carries the pid of the rpcarena process that
created it: in its name (nft tables `rpcarena_PID_PORT`, network namespaces `rpcarenaPIDx0` or
`rpcarena-PID-...`, interfaces `rpaPIDh0`, folders `/tmp/rpcarena-PID-...`), or, for a process,
in its environment (`RPCARENA_OWNER=PID`, set by `children.Child` and inherited by every
descendant: a server's workers, a process under `ip netns exec`).

While the process lives, what it makes is registered here and removed when it is closed, and
at exit whatever is still registered is removed (normal exit, an error, Ctrl-C, SIGTERM and
SIGHUP, which the CLI turns into exceptions). What no process can do for itself (kill -9) is
done by the next start: `sweep` removes what rpcarena processes that no longer exist left,
and never touches what belongs to a live one.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import psutil

OWNER_ENV = "RPCARENA_OWNER"
_NAME = re.compile(r"(?:rpcarena|rpa)[-_]?(\d+)(?!\d)")
_LIVE: dict[str, Callable[[], None]] = {}
TOOL_TIMEOUT_S = 10


def owner(name: str) -> int | None:
    """The pid an rpcarena name carries, or None for a name that is not rpcarena's."""
    match = _NAME.match(name)
    return int(match.group(1)) if match else None


def owner_env() -> dict[str, str]:
    """What marks a child process (and its descendants) as this process's."""
    return {OWNER_ENV: str(os.getpid())}


def register(what: str, remove: Callable[[], None]) -> str:
    """Remember how to remove `what` (a name unique to it) should this process end before it does."""
    _LIVE[what] = remove
    return what


def release(what: str) -> None:
    """`what` was removed by its owner: nothing left to do at exit."""
    _LIVE.pop(what, None)


def remove_all() -> None:
    """Remove everything still registered, the latest first (a table in a namespace before the namespace)."""
    for what in reversed(list(_LIVE)):
        remove = _LIVE.pop(what)
        try:
            remove()
        except (OSError, subprocess.SubprocessError):
            continue  # already gone, or the tool is: nothing more this process can do


atexit.register(remove_all)


def _dead(name: str) -> bool:
    pid = owner(name)
    return pid is not None and pid != os.getpid() and not psutil.pid_exists(pid)


def _lines(*argv: str) -> list[str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.splitlines() if done.returncode == 0 else []


def _quiet(*argv: str) -> None:
    try:
        subprocess.run(argv, capture_output=True, timeout=TOOL_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        pass


def _processes() -> list[str]:
    """Kill every process marked as started by an rpcarena that no longer exists."""
    killed = []
    for process in psutil.process_iter():
        try:
            mark = process.environ().get(OWNER_ENV)
        except (psutil.Error, OSError):
            continue
        if mark and mark.isdigit() and _dead(f"rpcarena-{mark}"):
            try:
                process.send_signal(signal.SIGKILL)
            except psutil.Error:
                continue
            killed.append(f"process {process.pid} (of rpcarena {mark})")
    return killed


def _namespaces() -> list[str]:
    stale = [line.split()[0] for line in _lines("ip", "netns", "list") if line.strip() and _dead(line.split()[0])]
    for name in stale:
        _quiet("ip", "netns", "del", name)
    return [f"network namespace {name}" for name in stale]


def _interfaces() -> list[str]:
    names = [line.split(":")[1].strip().split("@")[0] for line in _lines("ip", "-o", "link") if line.count(":") >= 2]
    stale = [name for name in names if _dead(name)]
    for name in stale:
        _quiet("ip", "link", "del", name)  # one end of a veth pair takes the other with it
    return [f"interface {name}" for name in stale]


def _tables() -> list[str]:
    tables = [line.split()[1:3] for line in _lines("nft", "list", "tables") if len(line.split()) == 3]
    stale = [(family, name) for family, name in tables if _dead(name)]
    for family, name in stale:
        _quiet("nft", "delete", "table", family, name)
    return [f"nft table {name}" for _, name in stale]


def _folders() -> list[str]:
    stale = [p for p in Path(tempfile.gettempdir()).glob("rpcarena-*") if p.is_dir() and _dead(p.name)]
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)
    return [f"folder {p}" for p in stale]


def sweep() -> list[str]:
    """Remove what rpcarena processes that no longer exist left in the system; say what.
    Processes first: a server inside a namespace goes before the namespace."""
    return _processes() + _namespaces() + _interfaces() + _tables() + _folders()
