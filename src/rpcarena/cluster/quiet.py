"""What keeps Dask out of the numbers on a measuring node: its profiler off, its timers slowed.

One definition for the workers rpcarena connects to (the engine sets it on each), the ones it
starts itself (the testbed's, through the environment) and the docs' `dask worker` commands;
and, for a cluster rpcarena starts, what keeps its HTTP server closed (CLOSED_CONFIG).
"""

from __future__ import annotations

from rpcarena.cluster import tasks

QUIET_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": f"{tasks.TICK_MS:.0f}ms",
    "distributed.admin.system-monitor.interval": f"{tasks.MONITOR_MS:.0f}ms",
    "distributed.admin.system-monitor.disk": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
    "distributed.worker.memory.terminate": False,
}

# A cluster rpcarena starts serves nothing over HTTP (no dashboard, no /metrics, no /info): Dask's
# HTTP server still listens, on loopback, but has no page to give.
CLOSED_CONFIG: dict[str, object] = {
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}


def as_env(config: dict[str, object]) -> dict[str, str]:
    """A Dask configuration as DASK_* environment variables, for `dask scheduler`, `dask worker`
    and a client in another process (Dask reads each value back as a Python literal)."""
    return {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
            for key, value in config.items()}
