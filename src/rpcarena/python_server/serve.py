"""`python -m rpcarena.python_server.serve CONTENDER`: a Python contender's server (the worker contract's `serve`)."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from rpcarena import seeds
from rpcarena.contenders import extra_handlers, get
from rpcarena.contenders.base import PythonContender
from rpcarena.errors import ArenaError, UsageError
from rpcarena.python_server import handlers


def services_of(rest: list[str]) -> dict[str, str]:
    """`--NAME URL` pairs: the run's backing services (`--redis redis://...`)."""
    if len(rest) % 2 or not all(name.startswith("--") for name in rest[::2]):
        raise UsageError(f"bad service options {' '.join(rest)!r}: give --NAME URL pairs, e.g. --redis URL")
    return {name[2:]: url for name, url in zip(rest[::2], rest[1::2])}


def _add_extra_handlers() -> None:
    """The handlers the seeds and the user's schema (served with --schema) add to the servers of a framework."""
    for extras in (*seeds.EXTRA_HANDLERS, handlers.EXTRA_HANDLERS):
        for framework, extra in extras.items():
            extra_handlers.register(framework, extra)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rpcarena.python_server.serve", allow_abbrev=False,
                                     epilog="Backing services follow as --NAME URL, e.g. --redis redis://...")
    parser.add_argument("contender")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args, rest = parser.parse_known_args(argv)
    # A measured server has nothing to flush: leave at once, whatever loop it runs.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    try:
        _add_extra_handlers()
        contender = get(args.contender)
        if not isinstance(contender, PythonContender):
            raise ArenaError(f"{args.contender} is not a Python contender")
        contender.serve(args.host, args.port, services_of(rest))
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
