"""The cs6650 seed: its workloads (`workloads.WORKLOADS`) and its suite."""

from rpcarena.seeds.cs6650 import workloads
from rpcarena.seeds.cs6650.suite import SUITE

__all__ = ["SUITE", "workloads"]
