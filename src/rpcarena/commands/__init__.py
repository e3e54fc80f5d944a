"""The subcommands of `rpcarena`, one module each; importing them registers them."""

from rpcarena.commands import build, listing, run  # noqa: F401
