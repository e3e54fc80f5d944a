"""The subcommands of `rpcarena`, one module each: its `NAME`, `add(subparsers)` and `main(args, console)`."""

from rpcarena.commands import build, compare, export, listing, report, run, show, suite, target

# The order of `rpcarena --help`.
COMMANDS = {module.NAME: module for module in (listing, run, suite, target, show, report, compare, export, build)}
