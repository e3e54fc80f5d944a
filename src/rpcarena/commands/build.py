"""`rpcarena build`: build the native workers and the delay line now (otherwise they build on first use)."""

from __future__ import annotations

import argparse
import time

from rich.console import Console

from rpcarena.commands.options import command
from rpcarena.errors import UnavailableError
from rpcarena.orchestration import builds

NAME = "build"


def add(sub: argparse._SubParsersAction) -> None:
    p = command(sub, NAME, "build the Go, Rust and Java workers and the delay line (cached by source hash)",
                "Build the native workers now (otherwise each builds on first use); a worker whose sources "
                "did not change is reused from the cache.",
                ["rpcarena build", "rpcarena build --language go,rust"])
    p.add_argument("--language", help="only these, e.g. go,rust or delayline")


def main(args: argparse.Namespace, console: Console) -> int:
    wanted = set(args.language.split(",")) if args.language else None
    for language, worker in {**builds.workers(), "delayline": builds.tool("delayline")}.items():
        if wanted and language not in wanted:
            continue
        start = time.monotonic()
        try:
            with console.status(f"building {language}"):
                worker.ensure_built()
        except UnavailableError as error:
            console.print(f"[yellow]{language}[/]: {error}")
            continue
        console.print(f"[green]{language}[/]: {worker.artifact()} ({time.monotonic() - start:.0f} s)")
    return 0
