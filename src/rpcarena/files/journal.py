"""An append-only file of JSON lines beside a document: what was added since the document was saved whole.

Rewriting a whole document after every record makes saving grow with the run (a fake hprpc2016
suite spent 31 of its 33 s so: 557 full rewrites, 1,114 fsyncs). A journal instead takes one
line per record, synced, so a crash loses at most the record being written; the document is
written whole only at the run's ends, and the journal then removed. Its first line names the
whole save it continues (`continues`): a journal left beside a later save (a crash between that
save and the removal) names another, and is passed over.

A line cut short (the record in flight when the process died) ends the journal; so does a
line that is not a JSON object. The journal is made as every output is (`output`: a new file
renamed into place, never through a link) and kept open for appends.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rpcarena.errors import UsageError
from rpcarena.files import inputs, output

FORMAT = "rpcarena-journal"
VERSION = 1


def path_of(document: Path) -> Path:
    return document.with_name(f"{document.name}.journal")


class Journal:
    """An open journal: `append` writes one record and syncs it before returning."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def start(cls, document: Path, continues: str) -> Journal:
        """A new journal beside `document`, continuing its whole save `continues`."""
        path = path_of(document)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            output.check(path, "the journal", force=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_APPEND, 0o666)
        except OSError as error:
            raise output.failed(path, error) from None
        journal = cls(path, fd)
        try:
            journal.append({"format": FORMAT, "version": VERSION, "continues": continues})
            output.take_name(tmp, path, "the journal", True)
            output.sync_folder(path.parent)
        except BaseException:
            journal.close()
            tmp.unlink(missing_ok=True)
            raise
        return journal

    def append(self, record: dict[str, Any]) -> None:
        line = memoryview(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        try:
            while line:
                line = line[os.write(self._fd, line):]
            os.fdatasync(self._fd)
        except OSError as error:
            raise output.failed(self.path, error) from None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@dataclass(frozen=True)
class Read:
    """What a journal holds: the save it continues and its whole records, in order."""

    continues: str | None
    records: list[dict[str, Any]]


def read(document: Path, limit: int) -> Read | None:
    """The journal beside `document`, or None when there is none."""
    path = path_of(document)
    if not os.path.lexists(path):
        return None
    data = inputs.read_bytes(path, "the journal", limit)
    lines = data.split(b"\n")[:-1]  # the last piece has no newline: empty, or the record cut short
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            break
        if not isinstance(record, dict):
            break
        records.append(record)
    if not records or records[0].get("format") != FORMAT:
        raise UsageError(f"{path} is not an rpcarena journal: move it away, then read {document} again")
    continues = records[0].get("continues")
    return Read(continues if isinstance(continues, str) else None, records[1:])


def remove(document: Path) -> None:
    """The journal beside `document` is folded into it: gone."""
    try:
        path_of(document).unlink()
    except FileNotFoundError:
        pass
    except OSError as error:
        raise output.failed(path_of(document), error) from None
