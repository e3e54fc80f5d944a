"""One writer per results file: an exclusive lock beside it, held for the writing command's life.

Two runs given one --out would each save their own cells over the other's (the drill's two runs
both said `results: same.json` and exited 0; the file held the second's cell alone). So a command
that writes a results document (run, run --resume, suite, target) first takes `.NAME.lock` beside
it (flock, which the kernel drops when the process dies, kill -9 included), writes its pid in it,
and holds it until it ends; the document and its journal are written only under it. A second
command on the same file is refused at once, naming the holder's pid.

The lock file is removed by its holder while still holding it; one who opened it just before
finds, once it has the lock, that the name is no longer its file, and takes the lock again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from rpcarena.errors import UsageError
from rpcarena.files.output import failed

ATTEMPTS = 20  # lock files removed under us in a row before giving up (each a holder ending)
HOLDER_WAIT_S = 0.5  # for a holder that has the lock but has not written its pid yet


def lock_path(document: Path) -> Path:
    return document.with_name(f".{document.name}.lock")


@contextlib.contextmanager
def held(document: str | os.PathLike[str], option: str = "--out") -> Iterator[None]:
    """Hold the lock of `document` over the block; a UsageError naming the holder if another has it."""
    path = lock_path(Path(document))
    fd = _acquire(path, Path(document), option)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            if _names(path, fd):
                path.unlink()
        os.close(fd)


def _acquire(path: Path, document: Path, option: str) -> int:
    for _ in range(ATTEMPTS):
        fd = _open(path, option)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise UsageError(f"{document} is being written by another rpcarena (pid {holder}): wait for it to end, "
                             f"or give {option} another file") from None
        if _names(path, fd):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        os.close(fd)  # its holder removed it as we opened it: take the new one
    raise UsageError(f"{document}: its lock {path} keeps changing hands; give {option} another file")


def _open(path: Path, option: str) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
    except OSError as error:
        if error.errno == errno.ELOOP:  # a link planted at the lock's name
            raise UsageError(f"{path} is a symbolic link: rpcarena follows none; remove it, or give {option} "
                             "another file") from None
        raise failed(path, error) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{path} is not a regular file: remove it, or give {option} another file")
    return fd


def _names(path: Path, fd: int) -> bool:
    """Whether `path` still names the file open as `fd`."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (found.st_dev, found.st_ino) == (mine.st_dev, mine.st_ino)


def _holder(fd: int) -> str:
    """The pid the holder wrote, waiting a moment for one that has just taken the lock."""
    deadline = time.monotonic() + HOLDER_WAIT_S
    while True:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        if text.isdigit() or time.monotonic() > deadline:
            return text or "unknown"
        time.sleep(0.01)
