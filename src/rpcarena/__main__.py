"""`python -m rpcarena` and the `rpcarena` console script: the command, whose first signal ends it cleanly.

Loading the command takes seconds (numpy, matplotlib, grpc, Dask on a busy machine). A Ctrl-C or
SIGTERM in that time would print Python's traceback, or kill the process by the signal; so the
first stop signal is answered from the very start, as the CLI answers it later (one line, exit
128 + signal), and those after it are ignored, as during a run's cleanup.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import MutableMapping
from typing import Any

from rpcarena.errors import STOP_SIGNALS, Stop


def fork_without_grpc_handlers(environ: MutableMapping[str, str]) -> None:
    """Before grpc loads: no fork handlers of its own. Every driver and server is forked from this
    process, and grpcio 1.80 and later, with a channel or a server alive here (a target's first call, a
    test's own server), restarts its poller in the forked child, which then dies before exec when
    subprocess closes its descriptors (grpc/grpc#43055): the driver was gone before reading its spec.
    rpcarena never uses grpc in a forked child without exec, which is all that fork support is for."""
    environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")


def _stop_while_loading(signum: int, frame: Any) -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    stop = Stop(signum)
    print(f"rpcarena: interrupted by {stop.name}", file=sys.stderr)
    raise SystemExit(stop.exit_code)


def run() -> int:
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop_while_loading)
    fork_without_grpc_handlers(os.environ)
    from rpcarena.cli import main  # the seconds of loading

    return main()


if __name__ == "__main__":
    sys.exit(run())
