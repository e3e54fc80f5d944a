"""Child processes: started pinned in their own process group, read line by line, never left behind.

Every process rpcarena starts (servers, drivers, Redis) is registered here and
killed, with its whole process group, when the arena ends: normally, on an
error, on Ctrl-C or SIGTERM, or at interpreter exit. Each dies with rpcarena
(PR_SET_PDEATHSIG), and each carries rpcarena's pid in its environment, as its
descendants do, so that what a kill -9 leaves is found at the next start
(`leftovers.sweep`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import time
from collections import deque
from pathlib import Path
from typing import Any

import psutil

from rpcarena.errors import WorkerError
from rpcarena.process import leftovers
from rpcarena.process.placement import preexec

_LIVE: set[subprocess.Popen[bytes]] = set()
STDERR_TAIL = 20
STOPPED = (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)


def stopped(pid: int) -> bool:
    """Whether process `pid` is suspended (SIGSTOP, a debugger): alive, yet making no progress, so
    every call that passes through it waits (the drill's SIGSTOPped delay line gave an "ok" cell of
    0 calls after 34 s)."""
    try:
        return psutil.Process(pid).status() in STOPPED
    except psutil.Error:
        return False


def free_port(host: str) -> int:
    """A port free on `host` now, for a child that takes its port on the command line (Redis,
    HAProxy); the child binds it a moment later."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class Child:
    """A child process speaking JSON lines on stdout, with its stderr kept in a file."""

    def __init__(self, argv: list[str], cpus: tuple[int, ...] | None, log: Path,
                 env: dict[str, str] | None = None, stdin: bool = False, outlive: bool = False) -> None:
        """`outlive`: not killed when rpcarena dies, for a child that undoes what it made once its
        stdin closes (delaynet removes its namespaces); every other child dies with rpcarena."""
        self.argv = argv
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        # Never through a link planted at the log's name (rpcarena may be root; see log_folder).
        self._stderr = os.fdopen(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644), "wb")
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self._stderr,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            preexec_fn=preexec(cpus, die_with_parent=not outlive),
            env={**(os.environ if env is None else env), **leftovers.owner_env()},
            close_fds=True)
        _LIVE.add(self.proc)
        self._buffer = b""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, line: str) -> None:
        """A line to its stdin; a child that is gone before reading it is a WorkerError naming why
        (never the BrokenPipeError that reads, at the top, as rpcarena's own output closed)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()  # what it could not take is dropped: closing must not flush it again
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)  # its stderr and exit status, whole
            raise WorkerError(f"{Path(self.argv[0]).name} exited before reading its input: "
                              f"{self.last_error_line()} (log: {self.log})") from None

    def close_stdin(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()

    def read_json(self, timeout_s: float) -> dict[str, Any] | None:
        """The next JSON object line on stdout (other lines are passed over); None at end of
        output or after the timeout."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            with selectors.DefaultSelector() as sel:
                sel.register(self.proc.stdout, selectors.EVENT_READ)
                if not sel.select(min(remaining, 0.5)):
                    continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:  # the end of its output: a last line without a newline still counts
                if not self._buffer.strip():
                    return None
                self._buffer += b"\n"
                break
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            return message
        return self.read_json(max(0.0, deadline - time.monotonic()))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def lost(self, what: str) -> str | None:
        """Why this child serves no more, naming it `what`: it died, or it is stopped; None while it runs."""
        if not self.alive():
            return f"{what} died ({self.ended()})"
        if stopped(self.pid):
            return f"{what} is stopped (SIGSTOP?): every call through it waits"
        return None

    def pause(self) -> None:
        """Stop its whole group (SIGSTOP) while it waits for its next use: a process kept between cells
        then takes no CPU from the others (a JVM's compiler or collector would)."""
        signal_group(self.proc, signal.SIGSTOP)

    def resume(self) -> None:
        signal_group(self.proc, signal.SIGCONT)

    def stderr_tail(self) -> str:
        self._stderr.flush()
        try:
            lines = deque(self.log.read_text(errors="replace").splitlines(), maxlen=STDERR_TAIL)
        except OSError:
            return ""
        return "\n".join(lines)

    def last_error_line(self) -> str:
        """The last line it wrote to stderr, else how it ended (exit code or signal)."""
        lines = [line for line in self.stderr_tail().splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"no message; {self.ended()}"

    def ended(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def stop(self, grace_s: float = 3.0) -> int | None:
        """SIGTERM the process group, SIGKILL it after the grace period; reap."""
        if self.proc.poll() is None:
            signal_group(self.proc, signal.SIGTERM)
            signal_group(self.proc, signal.SIGCONT)  # a stopped process acts on SIGTERM only once resumed
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                signal_group(self.proc, signal.SIGKILL)
                self.proc.wait()
        else:
            signal_group(self.proc, signal.SIGKILL)  # stray grandchildren
        self.close_stdin()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._stderr.close()
        _LIVE.discard(self.proc)
        return self.proc.returncode


def signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send `sig` to the process group `proc` leads (started in a session or group of its own); a group
    already gone is no error."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_all() -> None:
    """Kill every live child and its group (used on errors, Ctrl-C and exit)."""
    for proc in list(_LIVE):
        signal_group(proc, signal.SIGKILL)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        _LIVE.discard(proc)


atexit.register(kill_all)


def keep(child: Child) -> None:
    """Leave `child` out of kill_all: its owner outlives any one run and stops it itself (a test's
    cluster testbed). It still dies with rpcarena (PDEATHSIG)."""
    _LIVE.discard(child.proc)
