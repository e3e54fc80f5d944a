"""multiplexing: rpcarena's own study of calls sharing a connection (issue 25), its workload and suite."""

from rpcarena.seeds.multiplexing import workloads
from rpcarena.seeds.multiplexing.suite import SUITE

__all__ = ["SUITE", "workloads"]
