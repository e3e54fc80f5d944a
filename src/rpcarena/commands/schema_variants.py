"""The native workers built with the user's schema before a run (`rpcarena run --proto F`).

Each worker whose manifest has `schema_build` and a contender in the run is built for the schema
here, once, so the progress says what the first build took (or that the cached one is reused) and
no cell's server waits on a build. A worker that cannot be built leaves its cells unavailable,
with the reason, as the built-in workloads' builds do.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rpcarena.contenders import native
from rpcarena.errors import UnavailableError
from rpcarena.process import builds


def build_all(contenders: list[str], clients: list[str], method: str, say: Callable[[str], None]) -> None:
    """Build the variants the run's `contenders` and `--client` drivers (`go`: a worker's language)
    need for `method`; `say` gets one progress line each, and one when a build waits for another
    process's (that wait is not counted as this build's time)."""
    descriptor_set = native.user_set()
    for worker in builds.workers().values():
        if descriptor_set is None or not worker.builds_schemas or worker.unavailable():
            continue
        if not _needed(worker, contenders, clients, method):
            continue
        variant = worker.for_schema(descriptor_set)
        if variant.built():
            say(f"{worker.language} worker for this schema: reused ({variant.artifact()})")
            continue
        started = time.monotonic()
        try:
            waited = variant.ensure_built(say)
        except UnavailableError as error:
            say(f"{worker.language} worker for this schema: not built: {error}")
            continue
        say(f"{worker.language} worker for this schema: {built_in(time.monotonic() - started, waited)}")



def _needed(worker: builds.Worker, contenders: list[str], clients: list[str], method: str) -> bool:
    """Whether a cell of the run may use the worker's variant: an entry of it in the run, as a server
    or a client, serves `method`. A worker whose every cell is unsupported (a schema of an edition
    its toolchain cannot read) is not built, so its cells say why instead of a failed build."""
    for entry in worker.entries:
        in_run = entry.id in contenders or entry.id in clients or (entry.client and worker.language in clients)
        if in_run and native.NativeContender(worker, entry).unsupported(method) is None:
            return True
    return False


def built_in(total_s: float, waited_s: float) -> str:
    """'first build in 41.0 s', or what another rpcarena's build took from this one: the wait for its
    lock is not this build's time."""
    if waited_s >= OTHERS_BUILD_S and total_s - waited_s < OTHERS_BUILD_S:
        return f"built by another rpcarena while this one waited {waited_s:.0f} s"
    wait = f" (after waiting {waited_s:.0f} s for another rpcarena's build)" if waited_s >= OTHERS_BUILD_S else ""
    return f"first build in {total_s - waited_s:.1f} s{wait}"


OTHERS_BUILD_S = 1.0  # a wait shorter than this is a lock taken in passing, not another's build
