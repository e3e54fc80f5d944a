"""The predictions seed: its workloads, its servers' handlers (`service.EXTRA_HANDLERS`) and its suite."""

from rpcarena.seeds.predictions import service, workloads
from rpcarena.seeds.predictions.suite import SUITE

__all__ = ["SUITE", "service", "workloads"]
