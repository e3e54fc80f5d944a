"""rpcarena's one exception hierarchy.

Foreign exceptions (OSError, grpc.RpcError, subprocess failures, ...) are
translated into these at the boundary where they happen. Every message is one
line that says what to do; the CLI prints it and exits non-zero, nothing else
catches them.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error rpcarena reports to a user."""

    exit_code = 1


class UsageError(ArenaError):
    """Bad input: an unknown name, a malformed number, a missing file."""

    exit_code = 2


class UnavailableError(ArenaError):
    """A contender cannot run here (toolchain or package missing)."""


class ServerError(ArenaError):
    """A server did not start, or died while it was being measured."""


class WorkerError(ArenaError):
    """A client or native worker process failed or broke the worker contract."""


class Interrupted(ArenaError):
    """The user pressed Ctrl-C; what was measured so far has been saved."""

    exit_code = 130
