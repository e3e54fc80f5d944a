"""The seeds: each published study as a folder holding its workloads, its suite and its backing service.

Importing this package registers every seed's workloads (`rpcarena.workloads`), in
the order below, which is the order of `rpcarena list` and of the default arena.
Adding a seed is a folder like the others plus one name in `SEEDS`.
"""

from __future__ import annotations

from collections.abc import Mapping

from rpcarena.contenders.extra_handlers import Extra
from rpcarena.seeds import cs6650, hprpc2016, infobip2016, multiplexing, predictions, usp2018
from rpcarena.suites.model import Suite
from rpcarena.workloads import WORKLOADS, Workload, select

__all__ = ["EXTRA_HANDLERS", "SEEDS", "SUITES", "WORKLOADS", "Workload", "select"]

SEEDS = (usp2018, hprpc2016, cs6650, infobip2016, predictions, multiplexing)
SUITES: dict[str, Suite] = {seed.SUITE.name: seed.SUITE for seed in SEEDS}
# framework -> handler: what the seeds add to the Python servers of a framework (`worker.serve` adds them)
EXTRA_HANDLERS: tuple[Mapping[str, Extra], ...] = (predictions.service.EXTRA_HANDLERS,)


def _in_seed_order() -> None:
    """The registry in the order of SEEDS, whatever order the imports above ran in."""
    prefixes = [seed.workloads.PREFIX for seed in SEEDS]
    ordered = sorted(WORKLOADS.values(), key=lambda w: prefixes.index(w.suite))
    WORKLOADS.clear()
    WORKLOADS.update((w.id, w) for w in ordered)


_in_seed_order()
