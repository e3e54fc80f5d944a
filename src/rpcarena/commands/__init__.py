"""The subcommands of `rpcarena`, one module each; importing them registers them."""

from rpcarena.commands import build, compare, export, listing, report, run, suite, target  # noqa: F401
