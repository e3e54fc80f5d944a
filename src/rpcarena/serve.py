"""`python -m rpcarena.serve CONTENDER`: a Python contender's server (the worker contract's `serve`)."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from rpcarena import redis_store
from rpcarena.contenders import get
from rpcarena.contenders.base import PythonContender
from rpcarena.errors import ArenaError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rpcarena.serve")
    parser.add_argument("contender")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--redis", help="the Redis of the predictions service (else $RPCARENA_REDIS_URL)")
    args = parser.parse_args(argv)
    if args.redis:
        os.environ[redis_store.ENV] = args.redis
    # A measured server has nothing to flush: leave at once, whatever loop it runs.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    try:
        contender = get(args.contender)
        if not isinstance(contender, PythonContender):
            raise ArenaError(f"{args.contender} is not a Python contender")
        contender.serve(args.host, args.port)
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
