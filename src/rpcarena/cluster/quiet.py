"""What keeps Dask out of the numbers on a measuring node: its profiler off, its timers slowed.

One definition for the workers rpcarena connects to (the engine sets it on each), the ones it
starts itself (the testbed's, through the environment) and the docs' `dask worker` commands.
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


def quiet_env() -> dict[str, str]:
    """QUIET_CONFIG as DASK_* environment variables, for `dask scheduler` and `dask worker`."""
    return {"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
            for key, value in QUIET_CONFIG.items()}
