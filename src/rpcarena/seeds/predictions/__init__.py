"""The predictions seed: its workloads (registered on import) and its suite."""

from rpcarena.seeds.predictions import workloads
from rpcarena.seeds.predictions.suite import SUITE

__all__ = ["SUITE", "workloads"]
