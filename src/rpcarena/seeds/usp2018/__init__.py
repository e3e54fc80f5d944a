"""The usp2018 seed: its workloads (`workloads.WORKLOADS`) and its suite."""

from rpcarena.seeds.usp2018 import workloads
from rpcarena.seeds.usp2018.suite import SUITE

__all__ = ["SUITE", "workloads"]
