"""The cs6650 seed: its workloads (registered on import) and its suite."""

from rpcarena.seeds.cs6650 import workloads
from rpcarena.seeds.cs6650.suite import SUITE

__all__ = ["SUITE", "workloads"]
