"""`rpcarena build`: build the native workers and the delay line now (otherwise they build on first use).

Says of each what it did: built, already built (the cache holds these sources' build), or not
built and why with the fix. A build that was tried and failed, or one asked for by name that
cannot be built here, makes the exit non-zero; without names, a missing toolchain only skips.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.markup import escape

from rpcarena.commands.options import Subcommands, command
from rpcarena.commands.schema_variants import OTHERS_BUILD_S
from rpcarena.errors import UnavailableError, UsageError
from rpcarena.process import builds

NAME = "build"


def add(sub: Subcommands) -> None:
    p = command(sub, NAME, "build the Go, Rust and Java workers and the delay line (cached by source hash)",
                "Build the native workers now (otherwise each builds on first use); a worker whose sources "
                "did not change is reused from the cache.",
                ["rpcarena build", "rpcarena build --language go,rust"])
    p.add_argument("--language", help="only these, e.g. go,rust or delayline")


def main(args: argparse.Namespace, console: Console) -> int:
    every = {**builds.workers(), "delayline": builds.tool("delayline")}
    wanted = _wanted(args.language, every)
    failed = [name for name in wanted if not _build(name, every[name], console, named=args.language is not None)]
    return 1 if failed else 0


def _wanted(names: str | None, every: dict[str, builds.Worker]) -> list[str]:
    if names is None:
        return list(every)
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in every]
    if unknown or not wanted:
        raise UsageError(f"--language {names}: unknown {', '.join(unknown) or 'empty list'}; "
                         f"choose among {', '.join(every)}")
    return wanted


def _build(name: str, worker: builds.Worker, console: Console, named: bool) -> bool:
    """Build one and say what happened; False if it was to be built and was not."""
    # (soft_wrap: a path is printed whole, never broken across lines for a reader to copy)
    if worker.built():
        console.print(f"[green]{name}[/]: already built, {worker.artifact()}", soft_wrap=True)
        return True
    reason = worker.unavailable()
    if reason:
        console.print(f"[yellow]{name}[/]: not built: {escape(reason)}", soft_wrap=True)
        return not named
    start = time.monotonic()
    try:
        with console.status(f"building {name}"):
            waited = worker.ensure_built(lambda line: console.print(f"{name}: {line}", highlight=False))
    except UnavailableError as error:
        console.print(f"[red]{name}[/]: not built: {escape(worker.failed or str(error))}", soft_wrap=True)
        return False
    took = time.monotonic() - start - waited  # the wait for another rpcarena's build is not this one's time
    after = f" (after waiting {waited:.0f} s for another rpcarena's build)" if waited >= OTHERS_BUILD_S else ""
    console.print(f"[green]{name}[/]: built {worker.artifact()} in {took:.0f} s{after}", soft_wrap=True)
    return True
