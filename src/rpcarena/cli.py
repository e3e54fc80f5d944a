"""The `rpcarena` command: a thin layer over the library.

Every error reaches `main` as an ArenaError and leaves as one line on stderr
with a non-zero exit; nothing below this module prints or exits. Bad options are
one line too (not argparse's usage block), and SIGTERM and SIGHUP end a run as
Ctrl-C does: the cells kept, everything the run made removed, exit 128 + signal.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

from rich.console import Console

from rpcarena.commands import COMMANDS
from rpcarena.errors import ArenaError, Interrupted, Stop
from rpcarena.orchestration import children, leftovers

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
MEASURING = ("run", "target", "suite")  # the commands that start processes and make tables, namespaces
# "--duration -5s": a value that argparse would take for an option (it knows only -5 and -.5 as numbers)
_NEGATIVE = re.compile(r"-\.?[0-9][^\s=]*")


class Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr (exit 2), as every other error is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"rpcarena: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    """The whole command line: each command module adds its own subparser."""
    top = Parser(prog="rpcarena", description="Compare RPC mechanisms on one workload, soundly.", allow_abbrev=False)
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add(sub)
    return top


def negative_values(argv: list[str]) -> list[str]:
    """`--opt -5s` as `--opt=-5s`, so that a negative value reaches its check and is refused
    there, with the fix, instead of argparse's 'expected one argument'."""
    out: list[str] = []
    for arg in argv:
        if out and _NEGATIVE.fullmatch(arg) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


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
    args = top.parse_args(negative_values(sys.argv[1:] if argv is None else argv))
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
    except OSError as error:  # the last net: a path no check foresaw
        where = f"{error.filename}: " if error.filename else ""
        print(f"rpcarena: error: {where}{error.strerror or error}: check the path and its permissions",
              file=sys.stderr)
        return 2
    finally:
        children.kill_all()
        leftovers.remove_all()
