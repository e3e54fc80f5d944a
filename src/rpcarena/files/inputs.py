"""Every file rpcarena reads for a user: a regular file, or it is refused before anything waits on it.

Opening a FIFO for reading blocks until someone writes to it, and a device may never end, so a
path is opened without blocking (O_NONBLOCK), checked to be a regular file on the descriptor
itself (no window between a check and the open), and only then read. A link to a regular file
is read as that file. "-" (stdin) is the caller's to allow, where its --help documents it.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

from rpcarena.errors import UsageError

_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFIFO: "a FIFO",
          stat.S_IFSOCK: "a socket"}


def path_of(text: str, option: str) -> Path:
    """A path typed for `option`; an empty one is a usage error (it would mean the current folder)."""
    if not text.strip():
        raise UsageError(f"bad {option} '': give a file's path")
    return Path(text).expanduser()


def open_regular(path: str | os.PathLike[str], option: str) -> BinaryIO:
    """`path` open for reading, refused (UsageError) unless it is a regular file."""
    target = path_of(os.fspath(path), option)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UsageError(f"bad {option} {target}: no such file") from None
    except OSError as error:
        raise UsageError(f"bad {option} {target}: cannot read it ({error.strerror or error})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise UsageError(f"bad {option} {target}: it is {kind}; give a regular file")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str], option: str, limit: int | None = None) -> bytes:
    """The whole of a regular file (at most `limit` bytes: past it a UsageError)."""
    with open_regular(path, option) as source:
        data = source.read() if limit is None else source.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise UsageError(f"bad {option} {path}: larger than {limit:,} bytes")
    return data


def regular(path: str | os.PathLike[str], option: str) -> Path:
    """`path` checked to be a regular file now, for a tool that opens it itself (protoc)."""
    open_regular(path, option).close()
    return Path(path)
