"""The `rpcarena` command: a thin layer over the library.

Every error reaches `main` as an ArenaError and leaves as one line on stderr
with a non-zero exit; nothing below this module prints or exits. Bad options are
one line too (not argparse's usage block), and SIGTERM and SIGHUP end a run as
Ctrl-C does: the cells kept, everything the run made removed, exit 128 + signal.
The exit codes are `options.EXIT_CODES`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NoReturn

from rich.console import Console

from rpcarena import __version__
from rpcarena.commands import COMMANDS
from rpcarena.commands.options import EXIT_CODES, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE, PEER_OPTIONS
from rpcarena.errors import STOP_SIGNALS, ArenaError, Interrupted, Stop
from rpcarena.files import output
from rpcarena.process import children, leftovers
from rpcarena.suggest import did_you_mean

MEASURING = ("run", "target", "suite")  # the commands that start processes and make tables, namespaces
# "--duration -5s": a value that argparse would take for an option (it knows only -5 and -.5 as numbers)
_NEGATIVE = re.compile(r"-\.?[0-9][^\s=]*")
EXAMPLES = """examples:
  rpcarena run                                   the quick default arena, its answer first
  rpcarena run -c 1,8 -n 2000 --contender grpc-py,tcp-raw --workload usp.int32
  rpcarena show results/arena.json --wide        the full table of a run
  rpcarena compare before.json after.json --fail-if-slower 5%
(rpcarena COMMAND --help: each command's options and examples)"""


class PipeClosed(Exception):
    """The reader of stdout went away (`rpcarena show ... | head -1`): not an error."""


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that nothing more (nor the flush at exit) writes to the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


class Output(Console):
    """rich's Console, but a closed pipe ends the command quietly with 0, as other tools do
    (rich's own exits 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        silence_stdout()
        raise PipeClosed

    def _render_buffer(self, buffer: Any) -> str:
        """A pipe or a file gets no padding: a table's cells are padded to 200 columns there, which
        every line would carry as trailing spaces."""
        text: str = super()._render_buffer(buffer)
        if self.is_terminal:
            return text
        return "\n".join(line.rstrip() for line in text.split("\n"))


class Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr (exit 2), as every other error is."""

    words: Sequence[str] = ()  # the command line being parsed: which command a bad option was given to
    # the top parser's commands by name, set by `parser()` for did-you-mean (a command's own parser has none)
    commands: Mapping[str, argparse.ArgumentParser]

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        command = self._command()
        prog = f"{self.prog} {command}" if command and self.prog == "rpcarena" else self.prog
        self.exit(2, f"rpcarena: error: {message}{self._closest(message, command)} (see {prog} --help)\n")

    def _command(self) -> str | None:
        commands = getattr(self, "commands", {})
        return next((w for w in self.words if w in commands), None)

    def _closest(self, message: str, command: str | None) -> str:
        """Did-you-mean for the first unknown option: rpcarena's name for another tool's spelling of it
        (`--rps`: --rate), else the closest of its command's options (of every command's when the
        command is unknown: the top parser reports a command's unknown options)."""
        unknown = next((w for w in message.partition("unrecognized arguments: ")[2].split() if w.startswith("-")),
                       None)
        if unknown is None:
            return ""
        word = unknown.partition("=")[0]
        commands = getattr(self, "commands", {})
        parsers = [commands[command]] if command else [self, *commands.values()]
        known = {o for p in parsers for o in p._option_string_actions}
        ours = PEER_OPTIONS.get(word)
        if ours is not None and ours.split("/")[-1] in known:
            return f" (did you mean {ours}? rpcarena's name for {word})"
        return did_you_mean(word, known)


def parser() -> argparse.ArgumentParser:
    """The whole command line: each command module adds its own subparser."""
    top = Parser(prog="rpcarena", description="Compare RPC mechanisms on one workload, soundly.", allow_abbrev=False,
                 epilog=f"{EXAMPLES}\n\n{EXIT_CODES}", formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"rpcarena {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add(sub)
    top.commands = sub.choices  # for did-you-mean on a command's unknown options
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
    must not break off the cleanup that the first one started. The old handlers come back after,
    unless a stop came: then the signals stay ignored until the process is gone (a second one
    sent a moment after the first would otherwise meet Python's default at exit, and kill it by
    the signal instead of the exit code the first one chose)."""
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
        if signal.getsignal(signal.SIGINT) is stop:
            for sig, handler in before.items():
                signal.signal(sig, handler)


def main(argv: list[str] | None = None) -> int:
    # grpc's C core logs a failed TLS handshake ('Handshake failed') on stderr before the one-line
    # error that says it; quiet unless the user asks (this process and every child it starts)
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    top = parser()
    args = top.parse_args(negative_values(sys.argv[1:] if argv is None else argv))
    if not args.command:
        top.print_help()
        return EXIT_USAGE
    console = messages_console(args)
    try:
        with stop_signals():
            return _run(args, console)
    except Stop as stop:  # before a run had anything to keep
        print(f"rpcarena: interrupted by {stop.name}", file=sys.stderr)
        return stop.exit_code


def messages_console(args: argparse.Namespace) -> Console:
    """Where a command prints: stdout, or stderr when stdout carries a document (--format json,
    csv, markdown; run --out -). A terminal's width is its own (or COLUMNS); a pipe or a file gets 200 columns."""
    document = getattr(args, "format", "table") in ("json", "csv", "markdown") and args.command != "export"
    if document or (args.command == "run" and args.out == "-"):
        return Output(stderr=True)
    return Output(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 200)


def _run(args: argparse.Namespace, console: Console) -> int:
    try:
        if args.command in MEASURING:
            for gone in leftovers.sweep():
                console.print(f"[dim]removed what a dead rpcarena left: {gone}[/]")
        return COMMANDS[args.command].main(args, console)
    except Interrupted as error:
        print(f"rpcarena: {error}", file=sys.stderr)
        return error.exit_code
    except PipeClosed:
        return EXIT_OK
    except BrokenPipeError:  # a document written to stdout (--format csv) whose reader went away
        silence_stdout()
        return EXIT_OK
    except ArenaError as error:
        print(f"rpcarena: error: {error}", file=sys.stderr)
        return error.exit_code
    except OSError as error:  # the last net: a path no check foresaw, or a disk that filled up
        where = f"{error.filename}: " if error.filename else ""
        if error.errno in output.NO_ROOM:
            print(f"rpcarena: error: {where}{error.strerror}: free some space", file=sys.stderr)
            return EXIT_RUNTIME
        print(f"rpcarena: error: {where}{error.strerror or error}: check the path and its permissions",
              file=sys.stderr)
        return EXIT_USAGE
    finally:
        children.kill_all()
        leftovers.remove_all()
