"""`rpcarena build`: build the native workers now (otherwise they build on first use)."""

from __future__ import annotations

import argparse
import time

from rich.console import Console

from rpcarena.contenders import native
from rpcarena.errors import UnavailableError

NAME = "build"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", allow_abbrev=False,
                       help="build the Go, Rust and Java workers (cached by source hash)")
    p.add_argument("--language", help="only these languages, e.g. go,rust")




def main(args: argparse.Namespace, console: Console) -> int:
    wanted = set(args.language.split(",")) if args.language else None
    for language, worker in native.workers().items():
        if wanted and language not in wanted:
            continue
        start = time.monotonic()
        try:
            with console.status(f"building the {language} worker"):
                worker.ensure_built()
        except UnavailableError as error:
            console.print(f"[yellow]{language}[/]: {error}")
            continue
        console.print(f"[green]{language}[/]: {worker.artifact()} ({time.monotonic() - start:.0f} s)")
    return 0
