"""The `rpcarena` command: a thin layer over the library.

Every error reaches `main` as an ArenaError and leaves as one line on stderr
with a non-zero exit; nothing below this module prints or exits.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console

from rpcarena import procs
from rpcarena.errors import ArenaError, Interrupted

COMMANDS: dict[str, Callable[[argparse.Namespace, Console], int]] = {}
ADDERS: list[Callable[[argparse._SubParsersAction], None]] = []


def command(name: str) -> Callable:
    def register(fn: Callable) -> Callable:
        COMMANDS[name] = fn
        return fn
    return register


def add_measure_options(p: Any) -> None:
    """How cells are measured: shared by `run`, `target` and any command that measures."""
    p.add_argument("--clients", default="1", help="concurrency levels, e.g. 1,8,32 (default 1)")
    p.add_argument("--calls", type=int, help="measured calls per cell (default 1000 unless --duration)")
    p.add_argument("--duration", help="measure for a time instead of a count, e.g. 10s")
    p.add_argument("--warmup", default="1s", help="warm-up per cell, discarded (default 1s)")
    p.add_argument("--repeat", type=int, default=1, help="independent trials per cell, each a fresh server")
    p.add_argument("--pin", default="split", help="CPU placement: split (default), same or none")
    p.add_argument("--timeout", default="5s", help="per-call timeout; slower calls count as errors")
    p.add_argument("--cell-timeout", default="600s", help="give up on a cell after this long")
    p.add_argument("--samples", type=int, default=10_000, help="raw latencies kept per cell for plots")
    p.add_argument("--rate", type=float, help="open loop: calls per second over all clients")
    p.add_argument("--arrival", default="constant", help="open-loop arrivals: constant or poisson")
    p.add_argument("--find-max", action="store_true", help="search the highest rate meeting --slo")
    p.add_argument("--slo", help="latency objective for --find-max, e.g. 'p99<5ms' or 'p99.9<=20ms,mean<1ms'")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed cell")


def add_run_options(p: argparse.ArgumentParser, default_out: str = "results/arena.json") -> None:
    p.add_argument("--contender", help="comma-separated contender ids (default: the quick arena)")
    p.add_argument("--workload", help="comma-separated workload ids or patterns, e.g. 'usp.*'")
    p.add_argument("--client", help="client drivers, e.g. py,py-requests,go (default: the contender's own)")
    add_measure_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address servers bind to (default loopback)")
    p.add_argument("--port", type=int, default=0, help="server port (default 0: a free one)")
    p.add_argument("--redis", help="a Redis for predictions.* to seed and use (default: start one)")
    p.add_argument("--via", choices=("haproxy",), help="HTTP calls through a fresh HAProxy per cell")
    p.add_argument("--link", metavar="RATE", help="servers behind an emulated link of this rate, e.g. 100mbit "
                                                  "(network namespace + veth + htb; latency not emulated)")
    p.add_argument("--out", default=default_out, help=f"results file (default {default_out})")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rpcarena", description="Compare RPC mechanisms on one workload, soundly.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("list", help="contenders, workloads and suites, with what is unavailable and why")
    run = sub.add_parser("run", help="run an arena (the quick default one without options)")
    add_run_options(run)
    for adder in ADDERS:
        adder(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from rpcarena import commands  # noqa: F401  (registers the commands)

    parser = _parser()
    args = parser.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command](args, console)
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
        procs.kill_all()

