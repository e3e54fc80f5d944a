"""The subcommands of `rpcarena`, one module each: its `NAME`, `add(subparsers)` and `main(args, console)`."""

from __future__ import annotations

import argparse
from typing import Protocol

from rich.console import Console

from rpcarena.commands import build, compare, export, listing, report, run, show, suite, target
from rpcarena.commands.options import Subcommands


class Command(Protocol):
    """What each command module has: its name, its subparser, and its entry point returning the exit code."""

    NAME: str

    def add(self, sub: Subcommands) -> None: ...

    def main(self, args: argparse.Namespace, console: Console) -> int: ...


# The order of `rpcarena --help`.
_ORDER: tuple[Command, ...] = (listing, run, suite, target, show, report, compare, export, build)
COMMANDS = {module.NAME: module for module in _ORDER}
