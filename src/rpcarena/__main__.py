"""`python -m rpcarena` and the `rpcarena` console script: the command, whose first signal ends it cleanly.

Loading the command takes seconds (numpy, matplotlib, grpc, Dask on a busy machine). A Ctrl-C or
SIGTERM in that time would print Python's traceback, or kill the process by the signal; so the
first stop signal is answered from the very start, as the CLI answers it later (one line, exit
128 + signal), and those after it are ignored, as during a run's cleanup.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

from rpcarena.errors import STOP_SIGNALS, Stop


def _stop_while_loading(signum: int, frame: Any) -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    stop = Stop(signum)
    print(f"rpcarena: interrupted by {stop.name}", file=sys.stderr)
    raise SystemExit(stop.exit_code)


def run() -> int:
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop_while_loading)
    from rpcarena.cli import main  # the seconds of loading

    return main()


if __name__ == "__main__":
    sys.exit(run())
