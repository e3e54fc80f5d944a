"""Whether TCP_NODELAY is on, read back from the very sockets a server and its clients use.

Nagle's algorithm holds a small write until the previous one is acknowledged, and the
peer's delayed ACK waits up to 40 ms on Linux: a call that makes several small writes
can cost 40 ms per round trip for no other reason. Which end has TCP_NODELAY decides it,
and libraries differ (grpcio sets it, `rpyc.connect` does not), so rpcarena reads it from
the sockets themselves: each TCP socket of a process is duplicated into this one with
pidfd_getfd(2) (Linux 5.6, root or ptrace rights) and asked with getsockopt. That works
for any language and library, and across network namespaces.
"""

from __future__ import annotations

import ctypes
import os
import socket
from collections.abc import Iterable

import psutil

_SYS_PIDFD_GETFD = 438  # x86_64 and the generic table alike
_libc = ctypes.CDLL(None, use_errno=True)


def state(pids: Iterable[int], port: int, local: bool) -> bool | str | None:
    """TCP_NODELAY of the established TCP sockets of `pids` (and their child processes) whose
    local (`local`) or remote port is `port`: True or False when all agree, "mixed" when they
    differ, None when none could be read."""
    found = {flag for pid in _tree(pids) for flag in _flags(pid, port, local)}
    if not found:
        return None
    return found.pop() if len(found) == 1 else "mixed"


def _tree(pids: Iterable[int]) -> set[int]:
    out: set[int] = set()
    for pid in pids:
        try:
            process = psutil.Process(pid)
            out.add(pid)
            out.update(child.pid for child in process.children(recursive=True))
        except psutil.Error:
            continue
    return out


def _flags(pid: int, port: int, local: bool) -> list[bool]:
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return []
    try:
        return [flag for fd in _socket_fds(pid) if (flag := _flag(pidfd, fd, port, local)) is not None]
    finally:
        os.close(pidfd)


def _socket_fds(pid: int) -> list[int]:
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    fds = []
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                fds.append(int(name))
        except OSError:
            continue
    return fds


def _flag(pidfd: int, fd: int, port: int, local: bool) -> bool | None:
    copy = _libc.syscall(_SYS_PIDFD_GETFD, pidfd, fd, 0)
    if copy < 0:
        return None
    try:
        sock = socket.socket(fileno=copy)
    except OSError:
        os.close(copy)
        return None
    with sock:
        if sock.type != socket.SOCK_STREAM or sock.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        try:
            ours = sock.getsockname()[1] if local else sock.getpeername()[1]
        except OSError:  # a listening or unconnected socket
            return None
        if ours != port or (local and not _connected(sock)):
            return None
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def _connected(sock: socket.socket) -> bool:
    try:
        sock.getpeername()
        return True
    except OSError:
        return False
