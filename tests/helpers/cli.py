"""The `rpcarena` command under test: in this process (`cli`), or in a fresh one where the process
boundary is what is tested (`run_cli`, `popen_cli`: signals, exit by a signal, what a kill leaves).

A fresh interpreter costs 1.5-2 s of imports on two busy cores; `cli` costs none, so a test of
output, options and exit codes calls `cli`, with `--debug-mode` where it would otherwise measure.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

from rpcarena.process import children, leftovers

MEASURING = ("run", "target", "suite")  # cli.MEASURING: the commands that start servers and drivers
STARTING = (*MEASURING, "build")  # and the one that builds the native workers
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_cli(*args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    """`rpcarena ARGS` in a fresh process, output captured."""
    return subprocess.run([sys.executable, "-m", "rpcarena", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=kwargs.pop("cwd", None), env=kwargs.pop("env", os.environ.copy()),
                          **kwargs)


def popen_cli(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rpcarena", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def cli(*args: str, env: dict[str, str] | None = None, cwd: os.PathLike | str | None = None
        ) -> subprocess.CompletedProcess:
    """`rpcarena ARGS` in this process (`rpcarena.cli.main`), as `run_cli` returns it: the exit
    code, stdout and stderr. `env` is added to the environment for the call; the signal handlers,
    the environment and the working folder are as they were after it."""
    from rpcarena.cli import main  # the command's imports, once per test process

    out, err = io.StringIO(), io.StringIO()
    with _kept(env, cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse's --help and usage errors
            code = stop.code if isinstance(stop.code, int) else 2
    return subprocess.CompletedProcess(["rpcarena", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _kept(env: dict[str, str] | None, cwd: os.PathLike | str | None) -> Iterator[None]:
    """What `main` changes in a process, given back: its signal handlers, the environment, the
    folder, and, since `main` ends by killing every child it knows and removing every leftover
    registered, the children and leftovers a test made before (a module's shared server)."""
    handlers = {sig: signal.getsignal(sig) for sig in SIGNALS}
    environ, folder = dict(os.environ), os.getcwd()
    before_children, before_made = set(children._LIVE), dict(leftovers._LIVE)
    children._LIVE.clear()
    leftovers._LIVE.clear()
    os.environ.update(env or {})
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        children._LIVE.update(before_children)
        leftovers._LIVE.update(before_made)
