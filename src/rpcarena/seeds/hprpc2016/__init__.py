"""The hprpc2016 seed: its workloads (`workloads.WORKLOADS`) and its suite."""

from rpcarena.seeds.hprpc2016 import workloads
from rpcarena.seeds.hprpc2016.suite import SUITE

__all__ = ["SUITE", "workloads"]
