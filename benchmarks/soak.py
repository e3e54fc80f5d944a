"""A soak: one long cell, and whether memory stays flat over it (intervals, not samples).

Runs `rpcarena run --contender grpc-go -z 10m` (one cell, one trial) and, at 1, 5 and 10
minutes into the run, prints the resident memory of the orchestrator (the `rpcarena run`
process), of its driver processes and of the server. A run that kept every call would grow with
the calls; one that keeps a histogram per interval grows by a few hundred bytes a second. At the
end it prints the cell's calls, its intervals and whether they add up, the server's RSS as the
orchestrator read it each interval, and the trend of p50, p99 and that RSS across the intervals.

    .venv/bin/python benchmarks/soak.py [--contender grpc-go] [--client go] [--minutes 10] [--at 1,5,10]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
MB = 2**20


def _roles(cli: psutil.Process) -> dict[str, int]:
    """RSS in bytes of the orchestrator, its drivers (summed) and its server (summed)."""
    rss = {"orchestrator": cli.memory_info().rss, "drivers": 0, "server": 0}
    for child in cli.children(recursive=True):
        try:
            line = " ".join(child.cmdline())
            role = "drivers" if " drive" in line or "worker.drive" in line else "server" if "serve" in line else None
            if role:
                rss[role] += child.memory_info().rss
        except psutil.Error:
            continue  # ended between the listing and the read
    return rss


def soak(args: argparse.Namespace, out: Path) -> None:
    argv = [sys.executable, "-m", "rpcarena", "run", "--contender", args.contender, "--client", args.client,
            "--workload", args.workload, "-z", f"{args.minutes}m", "--warmup", "2s", "--cell-timeout",
            f"{args.minutes * 60 + 600}s", "-o", str(out), "--force", "-q"]
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=REPO, start_new_session=True)
    cli = psutil.Process(proc.pid)
    print(f"{'minute':>6} {'orchestrator MB':>16} {'drivers MB':>11} {'server MB':>10}", flush=True)
    try:
        for minute in args.at:
            while time.monotonic() - started < minute * 60 and proc.poll() is None:
                time.sleep(1)
            if proc.poll() is not None:
                break
            rss = _roles(cli)
            print(f"{minute:>6g} {rss['orchestrator'] / MB:>16.1f} {rss['drivers'] / MB:>11.1f} "
                  f"{rss['server'] / MB:>10.1f}  (load {os.getloadavg()[0]:.1f})", flush=True)
        proc.wait(timeout=args.minutes * 60 + 900)
    finally:
        if proc.poll() is None:  # Ctrl-C or a timeout: the CLI stops its own server and drivers on SIGINT
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(60)


def summary(out: Path) -> None:
    from rpcarena.record import intervals
    from rpcarena.report import terminal
    from rpcarena.results import load

    for cell in load(out).cells:
        print(f"{cell.contender}<-{cell.client}: {cell.calls:,} calls over {cell.wall_s:.0f} s, "
              f"{len(cell.intervals)} intervals holding {intervals.total_calls(cell.intervals):,} calls, "
              f"{sum(len(i['histogram']) for i in cell.intervals) / 1024:.0f} KiB of encoded histograms")
        rss = [i["rss_bytes"] for i in cell.server_intervals if i["rss_bytes"]]
        if rss:  # the server as the orchestrator read it each interval, and the trends across them
            print(f"server RSS read each interval: first {rss[0] / MB:.1f} MB, last {rss[-1] / MB:.1f} MB, "
                  f"max {max(rss) / MB:.1f} MB over {len(rss)} readings")
        trends = dict(zip(("p50", "p99", "server RSS"), terminal.trend_texts(cell)))
        print("trend across intervals: " + ", ".join(f"{name} {said}" for name, said in trends.items()))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--contender", default="grpc-go")
    p.add_argument("--client", default="go")
    p.add_argument("--workload", default="usp.int32")
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--at", default="1,5,10", help="minutes at which RSS is printed")
    args = p.parse_args()
    args.at = [float(m) for m in args.at.split(",")]
    with tempfile.TemporaryDirectory(prefix="rpcarena-soak-") as folder:
        out = Path(folder) / "soak.json"
        soak(args, out)
        if out.exists():
            summary(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
