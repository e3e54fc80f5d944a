"""What a run makes in the system besides its results: registered, removed on every way out, swept.

Everything rpcarena creates outside its own files carries the pid of the rpcarena process that
created it: in its name, made by `name` alone (nft tables `rpcarena_PID_PORT`, folders
`/tmp/rpcarena-PID-redis-...`, interfaces `rpaPIDc1`; delaynet's namespaces,
`rpcarena-PID-SEQ-client`, carry delaynet's own pid in the same form), which `owner` reads back;
or, for a process, in its environment (`RPCARENA_OWNER=PID`, set by `children.Child` and
inherited by every descendant: a server's workers, a process under `ip netns exec`).

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
IFNAMSIZ = 15  # the longest interface name Linux takes
# kind -> (prefix, separator): how each namespace of names lets one be written
_FORMS = {"folder": ("rpcarena", "-"), "netns": ("rpcarena", "-"), "table": ("rpcarena", "_"), "interface": ("rpa", "")}


def name(kind: str, *parts: object, pid: int | None = None) -> str:
    """The one maker of the names of what rpcarena makes in the system (a /tmp folder's prefix, a
    network namespace, an nft table, an interface), each carrying the pid of the process that made
    it so that `sweep` tells a dead process's from a live one's (`owner` reads it back). nftables
    takes no '-' and an interface at most 15 characters: each kind has its form (_FORMS)."""
    prefix, sep = _FORMS[kind]
    made = sep.join([f"{prefix}{sep}{os.getpid() if pid is None else pid}", *map(str, parts)])
    if kind == "interface" and len(made) > IFNAMSIZ:
        raise ValueError(f"interface name {made} is over {IFNAMSIZ} characters")
    return made
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


def removed_when_gone(path: Path) -> Callable[[], None]:
    """Remove `path` however this process ends, kill -9 included, without waiting for the next
    start's sweep: a watcher (`sh`, in a session of its own so that Ctrl-C does not reach it) holds
    the read end of a pipe only this process writes to, and removes `path` when it closes, which
    the kernel does at this process's end. The returned `let_go`, called once the owner removed
    `path` itself, ends the watcher."""
    read, write = os.pipe()
    try:
        watcher = subprocess.Popen(["sh", "-c", 'cat >/dev/null; exec rm -rf -- "$1"', "sh", str(path)], stdin=read,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        os.close(write)
        return lambda: None  # no shell: the next start's sweep removes it after a kill -9
    finally:
        os.close(read)

    def let_go() -> None:
        os.close(write)
        try:
            watcher.wait(TOOL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            watcher.kill()
            watcher.wait()

    return let_go


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
    for netns in stale:
        remove_namespace(netns)
    return [f"network namespace {netns}" for netns in stale]


def remove_namespace(netns: str) -> None:
    """Kill what runs in network namespace `netns`, delete its veths (each takes its peer in another
    namespace with it at once; left to the namespace's end, the kernel takes minutes on a busy
    machine), then the namespace: what delaynet does on its way out, done for a delaynet that was killed."""
    for pid in (int(word) for line in _lines("ip", "netns", "pids", netns) for word in line.split()
                if word.isdigit()):
        if pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
    for veth in _link_names(_lines("ip", "-n", netns, "-o", "link", "show", "type", "veth")):
        _quiet("ip", "-n", netns, "link", "del", veth)
    _quiet("ip", "netns", "del", netns)


def _link_names(lines: list[str]) -> list[str]:
    """The interface names of `ip -o link` lines ("3: to-router@if2: <...> ...")."""
    return [line.split(":")[1].strip().split("@")[0] for line in lines if line.count(":") >= 2]


def _interfaces() -> list[str]:
    names = _link_names(_lines("ip", "-o", "link"))
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
