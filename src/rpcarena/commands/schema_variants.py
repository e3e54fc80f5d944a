"""The native workers built with the user's schema before a run (`rpcarena run --proto F`).

Each worker whose manifest has `schema_build` and a contender in the run is built for the schema
here, once, so the progress says what the first build took (or that the cached one is reused) and
no cell's server waits on a build. A worker that cannot be built leaves its cells unavailable,
with the reason, as the built-in workloads' builds do.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from rpcarena.contenders import native
from rpcarena.errors import UnavailableError
from rpcarena.process import builds


def build_all(contenders: list[str], clients: list[str]) -> Iterator[str]:
    """Build the variants the run's `contenders` and `--client` drivers (`go`: a worker's language)
    need; one progress line each."""
    descriptor_set = native.user_set()
    for worker in builds.workers().values():
        wanted = worker.language in clients or any(entry.id in contenders or entry.id in clients
                                                   for entry in worker.entries)
        if descriptor_set is None or not wanted or not worker.builds_schemas or worker.unavailable():
            continue
        variant = worker.for_schema(descriptor_set)
        if variant.built():
            yield f"{worker.language} worker for this schema: reused ({variant.artifact()})"
            continue
        started = time.monotonic()
        try:
            variant.ensure_built()
        except UnavailableError as error:
            yield f"{worker.language} worker for this schema: not built: {error}"
            continue
        yield f"{worker.language} worker for this schema: first build in {time.monotonic() - started:.1f} s"
