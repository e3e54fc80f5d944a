"""The predictions seed: its workloads and its servers' handlers (registered on import) and its suite."""

from rpcarena.seeds.predictions import service, workloads
from rpcarena.seeds.predictions.suite import SUITE

__all__ = ["SUITE", "service", "workloads"]
