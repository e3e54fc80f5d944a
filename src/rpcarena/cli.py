"""The `rpcarena` command: a thin layer over the library.

Every error reaches `main` as an ArenaError and leaves as one line on stderr
with a non-zero exit; nothing below this module prints or exits.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from rpcarena.commands import COMMANDS
from rpcarena.errors import ArenaError, Interrupted
from rpcarena.orchestration import children


def parser() -> argparse.ArgumentParser:
    """The whole command line: each command module adds its own subparser."""
    top = argparse.ArgumentParser(prog="rpcarena", description="Compare RPC mechanisms on one workload, soundly.",
                                  allow_abbrev=False)
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    top = parser()
    args = top.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    if not args.command:
        top.print_help()
        return 2
    try:
        return COMMANDS[args.command].main(args, console)
    except Interrupted as error:
        print(f"rpcarena: {error}", file=sys.stderr)
        return error.exit_code
    except ArenaError as error:
        print(f"rpcarena: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("rpcarena: interrupted", file=sys.stderr)
        return 130
    finally:
        children.kill_all()
