"""The `rpcarena` command: a thin layer over the library.

Every error reaches `main` as an ArenaError and leaves as one line on stderr
with a non-zero exit; nothing below this module prints or exits. SIGTERM and
SIGHUP end a run as Ctrl-C does: the cells kept, everything the run made
removed, exit 128 + signal.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from rich.console import Console

from rpcarena.commands import COMMANDS
from rpcarena.errors import ArenaError, Interrupted, Stop
from rpcarena.orchestration import children, leftovers

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
MEASURING = ("run", "target", "suite")  # the commands that start processes and make tables, namespaces


def parser() -> argparse.ArgumentParser:
    """The whole command line: each command module adds its own subparser."""
    top = argparse.ArgumentParser(prog="rpcarena", description="Compare RPC mechanisms on one workload, soundly.",
                                  allow_abbrev=False)
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add(sub)
    return top


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP raise `Stop` where the program is; once: a second signal
    must not break off the cleanup that the first one started. The old handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise Stop(signum)
    before = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def main(argv: list[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    if not args.command:
        top.print_help()
        return 2
    try:
        with stop_signals():
            return _run(args, console)
    except Stop as stop:  # before a run had anything to keep
        print(f"rpcarena: interrupted by {stop.name}", file=sys.stderr)
        return stop.exit_code


def _run(args: argparse.Namespace, console: Console) -> int:
    try:
        if args.command in MEASURING:
            for gone in leftovers.sweep():
                console.print(f"[dim]removed what a dead rpcarena left: {gone}[/]")
        return COMMANDS[args.command].main(args, console)
    except Interrupted as error:
        print(f"rpcarena: {error}", file=sys.stderr)
        return error.exit_code
    except ArenaError as error:
        print(f"rpcarena: error: {error}", file=sys.stderr)
        return error.exit_code
    finally:
        children.kill_all()
        leftovers.remove_all()
