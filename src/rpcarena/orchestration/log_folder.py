"""A run's log folder, `<folder of -o>/logs/<second>/`, made so that no one else can steer its writes.

rpcarena often runs as root (an emulated link needs it) and `-o` may name a shared folder such as
/tmp, whose predictable `logs/<second>/cell-NNNN/server.log` another user could plant a symbolic
link at, to have root truncate a file of their choosing. So the `logs` folder is used only when it
is a real folder (never a link) that no one but its owner can write, owned by this user, by root,
or by the owner of the folder of -o; and the run's own folder in it is made anew (`mkdir` neither
follows a link nor takes an existing folder), by a name no earlier run or other user has taken.
Files in it are then opened without following links (`children.Child`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rpcarena.errors import UsageError

ATTEMPTS = 100  # runs started within the same second beside one results file


def make(out: Path, stamp: str) -> Path:
    """The run's new log folder beside `out` (`logs/STAMP`, or `logs/STAMP-2`, ... when taken)."""
    logs = out.parent / "logs"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        _new_folder(logs)
    except FileExistsError:
        pass  # made earlier: checked below
    except OSError as error:
        raise UsageError(f"cannot make the logs folder {logs} ({error.strerror}): give -o in a folder you can "
                         "write") from None
    _check(logs)
    for n in range(1, ATTEMPTS + 1):
        folder = logs / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            _new_folder(folder)
        except FileExistsError:  # a folder, a file or a link: never reused
            continue
        return folder
    raise UsageError(f"{logs}: {ATTEMPTS} runs' log folders for {stamp} exist already: clear {logs} out")


def _new_folder(path: Path) -> None:
    """A new folder (FileExistsError if anything is there) writable by this user alone, whatever the umask."""
    path.mkdir()
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, 0o755)
    finally:
        os.close(fd)


def _check(logs: Path) -> None:
    """A UsageError unless `logs` is a real folder that only a trusted owner can write."""
    found = os.lstat(logs)
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise UsageError(f"{logs} is a symbolic link or not a folder: rpcarena writes its logs there and "
                         "follows no link; remove it, or give -o in a folder of your own")
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or found.st_uid not in _trusted(logs.parent):
        raise UsageError(f"{logs} can be written by others (owner uid {found.st_uid}, mode "
                         f"{stat.S_IMODE(found.st_mode):o}): rpcarena writes its logs there; remove it, or give -o "
                         "in a folder of your own")


def _trusted(parent: Path) -> set[int]:
    """Whose `logs` folder is safe to write into: this user's, root's, and that of the owner of a
    folder of -o only its owner can write (a user's own results folder, under sudo)."""
    owners = {os.geteuid(), 0}
    found = os.stat(parent)
    if not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        owners.add(found.st_uid)
    return owners
