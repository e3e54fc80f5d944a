"""rpcarena's one exception hierarchy.

Foreign exceptions (OSError, grpc.RpcError, subprocess failures, ...) are
translated into these at the boundary where they happen. Every message is one
line that says what to do; the CLI prints it and exits non-zero, nothing else
catches them.
"""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # each ends a run as Ctrl-C does (`Stop`)


class ArenaError(Exception):
    """Base of every error rpcarena reports to a user."""

    exit_code = 1


class UsageError(ArenaError):
    """Bad input: an unknown name, a malformed number, a missing file."""

    exit_code = 2


class ThresholdFailed(ArenaError):
    """The run went through, but what it measured fails a gate the user set (`--max-error-rate`):
    its own exit code, so that CI can tell a failed gate from a broken run (0 ok, 1 runtime error,
    2 usage, 3 gate failed)."""

    exit_code = 3


class ThresholdAborted(ThresholdFailed):
    """An interval of the running cell failed a `--threshold '...:abort'`: the run stops there (k6's
    abortOnFail), the cells measured before it kept."""


class UnavailableError(ArenaError):
    """A contender cannot run here (toolchain or package missing)."""


class ServerError(ArenaError):
    """A server did not start, or died while it was being measured."""


class HelperLost(ServerError):
    """A process every call of the run passes through (the delay line or delaynet, the run's Redis, a
    cell's HAProxy) died or is stopped: the cell fails naming it, and the run stops there (no later
    cell could be measured as the others were); `--resume` measures the rest."""


class WorkerError(ArenaError):
    """A client or native worker process failed or broke the worker contract."""


class Interrupted(ArenaError):
    """A stop signal (Ctrl-C, SIGTERM, SIGHUP) ended the run; what was measured so far has been saved."""

    exit_code = 130

    def __init__(self, message: str, exit_code: int = 130) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def but(self, hint: str) -> Interrupted:
        """The same interruption, its message ending with what to do next."""
        return Interrupted(f"{self}; {hint}", self.exit_code)


class Stop(KeyboardInterrupt):
    """A stop signal raised where the program is, so that SIGTERM (timeout, CI runners, container
    stops) and SIGHUP end a run as Ctrl-C does: the cells kept, everything made removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.exit_code = 128 + signum
        self.name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
