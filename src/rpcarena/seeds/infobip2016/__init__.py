"""The infobip2016 seed: its workloads (`workloads.WORKLOADS`) and its suite."""

from rpcarena.seeds.infobip2016 import workloads
from rpcarena.seeds.infobip2016.suite import SUITE

__all__ = ["SUITE", "workloads"]
