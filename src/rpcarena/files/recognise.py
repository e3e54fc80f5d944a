"""A results document recognised by its content, whatever its name, key order or length.

What no command writes over without --force: a file that begins as a JSON object and names
the results format anywhere in it (rpcarena writes the key first; `jq -S` sorts it after
"cells"), or, cut short before that key, begins with the cells of one.
"""

from __future__ import annotations

import os
import re
import stat
from typing import BinaryIO

FORMAT = "rpcarena-results"
CHUNK = 2**20
MAX_SCAN_BYTES = 256 * 2**20  # a document is never larger (results.MAX_DOCUMENT_BYTES)

_MARK = re.compile(rb'"format"\s*:\s*"' + FORMAT.encode() + rb'"')
# a document cut before its format key: its cells, with the keys only a results document's cells hold
_CELLS = re.compile(rb'"cells"\s*:\s*\[\s*\{')
_CELL_KEYS = [re.compile(rb'"' + key + rb'"\s*:') for key in (b"contender", b"clients", b"calls")]
_OVERLAP = 64  # a mark split across two reads is still seen


def holds_results(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a regular file holding a results document, whole or cut short. A link is
    followed (what it points at is what a write through it would replace); anything else is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as source:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return _scan(source)


def _scan(source: BinaryIO) -> bool:
    read = source.read
    head = read(CHUNK)
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return False
    if _MARK.search(head) or (_CELLS.search(head) and all(key.search(head) for key in _CELL_KEYS)):
        return True
    seen, tail = len(head), head[-_OVERLAP:]
    while seen < MAX_SCAN_BYTES and (chunk := read(CHUNK)):
        if _MARK.search(tail + chunk):
            return True
        seen, tail = seen + len(chunk), chunk[-_OVERLAP:]
    return False
