"""The connections a server holds: its established TCP sockets on its port, read from the kernel.

`--connections` says how many connections the clients share; this is the server's side of it,
counted from the server's own sockets (its child processes' too: typed-json serves from several),
so "what does an open connection cost the server" gets a number beside its peak RSS.
"""

from __future__ import annotations

import psutil


def accepted(pid: int, port: int) -> int | None:
    """Established TCP connections of `pid` and its children on local `port`; None when unreadable."""
    try:
        process = psutil.Process(pid)
        tree = [process, *process.children(recursive=True)]
    except psutil.Error:
        return None
    found = 0
    for each in tree:
        try:
            found += sum(1 for c in each.net_connections(kind="tcp")
                         if c.status == psutil.CONN_ESTABLISHED and c.laddr and c.laddr.port == port)
        except psutil.Error:
            return None
    return found or None  # none at all: in another network namespace, where this one cannot see
