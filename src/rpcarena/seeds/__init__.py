"""The seeds: each published study as a folder holding its workloads, its suite and its backing service.

Each seed lists its workloads (`<seed>/workloads.py: WORKLOADS`); this package adds them to the
registry (`rpcarena.workloads`) in the order of `SEEDS`, which is the order of `rpcarena list` and
of the default arena. Adding a seed is a folder like the others plus one name in `SEEDS`.
"""

from __future__ import annotations

from collections.abc import Mapping

from rpcarena.contenders.extra_handlers import Extra
from rpcarena.seeds import cs6650, hprpc2016, infobip2016, multiplexing, predictions, usp2018
from rpcarena.suites.model import Suite
from rpcarena.workloads import WORKLOADS, Workload, add, select

__all__ = ["EXTRA_HANDLERS", "SEEDS", "SUITES", "WORKLOADS", "Workload", "select"]

SEEDS = (usp2018, hprpc2016, cs6650, infobip2016, predictions, multiplexing)
SUITES: dict[str, Suite] = {seed.SUITE.name: seed.SUITE for seed in SEEDS}
# framework -> handler: what the seeds add to the Python servers of a framework (`python_server.serve` adds them)
EXTRA_HANDLERS: tuple[Mapping[str, Extra], ...] = (predictions.service.EXTRA_HANDLERS,)


for _seed in SEEDS:
    for _workload in _seed.workloads.WORKLOADS:
        add(_workload)
