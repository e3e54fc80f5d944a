"""Every file rpcarena writes for a user: made new beside its path, then given the path's name.

A write never goes through what is at the path. The bytes go into a new file of a random name in
the same folder, opened with O_CREAT|O_EXCL|O_NOFOLLOW (nothing planted there is opened), which
then takes the path's name: linked to it where nothing is there (a link never replaces), renamed
over it only where a regular file is. A symbolic link, a device, a FIFO, a socket or a folder at
the path is refused with one line (as root, `-o /dev/null --force` would otherwise replace the
system's /dev/null, and a link planted by another user would have root write through it). A
results document at the path is refused too, whatever the file's name or the command, unless the
caller may write over it (`force`: --force, or the run's own --out).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from rpcarena.errors import ArenaError, UsageError
from rpcarena.files.recognise import holds_results

# A write that fails for want of room is the machine's state, not a bad path: exit 1, not 2.
NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder", stat.S_IFCHR: "a device",
          stat.S_IFBLK: "a device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


def write(path: str | os.PathLike[str], data: bytes | str, *, option: str = "the output", force: bool = False,
          durable: bool = False) -> Path:
    """Write `data` to `path` as described above; `durable`: fsynced with its folder before this returns."""
    with writing(path, option=option, force=force, durable=durable) as out:
        out.write(data.encode() if isinstance(data, str) else data)
    return Path(path)


@contextlib.contextmanager
def writing(path: str | os.PathLike[str], *, option: str = "the output", force: bool = False,
            durable: bool = False) -> Iterator[BinaryIO]:
    """A new file to write into, given `path`'s name once the block ends (removed if it raises)."""
    target = Path(path)
    check(target, option, force)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as error:
        raise failed(target, error) from None
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            if durable:
                os.fsync(fd)
        check(target, option, force)  # again: the path may have changed while the bytes were written
        take_name(tmp, target, option, force)
        if durable:
            sync_folder(target.parent)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise failed(target, error) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def writing_text(path: str | os.PathLike[str], *, option: str = "the output",
                 force: bool = False) -> Iterator[io.TextIOWrapper]:
    """`writing` for text (UTF-8, newlines as written: a CSV writer's own)."""
    with writing(path, option=option, force=force) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield text
        text.flush()
        text.detach()


def folder(path: str | os.PathLike[str], option: str) -> Path:
    """A folder to write generated names into (made if missing): a link at its path is refused, as
    at a file's (another user's link would pick where root writes)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # a folder, or what is checked below
            target.mkdir()
    except OSError as error:
        raise failed(target, error) from None
    _only(target, stat.S_IFDIR, option, "give a folder of your own")
    return target


def check(target: Path, option: str, force: bool) -> None:
    """A UsageError unless `target` is absent or a regular file that may be written over."""
    if not os.path.lexists(target):
        return
    _only(target, stat.S_IFREG, option, "remove it, or give another path")
    if not force and holds_results(target):
        raise UsageError(f"{target} holds a results document: {option} would write over it; give {option} another "
                         "file, or add --force to overwrite it")


def _only(target: Path, kind: int, option: str, fix: str) -> None:
    """A UsageError naming what is at `target` unless it is of `kind` (never a link: lstat)."""
    try:
        found = stat.S_IFMT(os.lstat(target).st_mode)
    except OSError as error:
        raise failed(target, error) from None
    if found != kind:
        wanted = "a folder" if kind == stat.S_IFDIR else "a regular file"
        raise UsageError(f"{option} {target} is {_KINDS.get(found, 'not ' + wanted)}, not {wanted}: rpcarena "
                         f"follows no link and writes no device, FIFO or socket; {fix}")


def take_name(tmp: Path, target: Path, option: str, force: bool) -> None:
    """The new file takes the target's name: a hard link where nothing is there (never replacing what
    appeared meanwhile), else a rename over the regular file checked again just before."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        check(target, option, force)
        os.replace(tmp, target)
        return
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EMLINK, errno.EXDEV, errno.ENOSYS):
            raise
        os.replace(tmp, target)  # a file system without hard links (checked absent or regular above)
        return
    tmp.unlink()


def sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def failed(target: Path, error: OSError) -> ArenaError:
    """A failed write, as the one-line error the CLI prints: no room is exit 1, a bad path exit 2."""
    why = error.strerror or str(error)
    if error.errno in NO_ROOM:
        return ArenaError(f"cannot write {target} ({why}): free some space and run the command again")
    return UsageError(f"cannot write {target} ({why}): give a path in a folder you can write")
