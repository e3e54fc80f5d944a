"""What rpcarena's measuring adds to a call, and whether its memory stays flat.

The same tcp-raw echo, against one real tcp-raw server, is timed two ways in one
run, alternating (ABAB...) so that machine noise hits both alike:

- bare:     the same tcp-raw client object (same socket, same per-call
            timeout) called in a plain loop, timed as a whole;
- rpcarena: the Python driver's closed loop (per-call clock, verification,
            HdrHistogram record, reservoir sample).

It prints the cost per call of each and the difference: the harness overhead
(target: under 5 us), in wall time and in this process's CPU time (what the
harness itself spends, which other load on a shared machine inflates far less
than the wall time). Then it runs the driver for 10^4, 10^5 and 10^6 calls and
prints the process's peak RSS after each (target: flat).

    .venv/bin/python benchmarks/harness_overhead.py [--calls 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rpcarena import contenders, seeds
from rpcarena.contenders.tcp_raw import HEADER
from rpcarena.contract import DriveSpec
from rpcarena.process.server_process import ServerProcess
from rpcarena.worker.drive import Driver

WORKLOAD = "usp.int32"


def bare_loop(target: str, frame: bytes, calls: int) -> tuple[float, float]:
    """Microseconds per call (wall, this process's CPU) of the client called in a plain loop:
    no clock, no record."""
    workload = seeds.WORKLOADS[WORKLOAD]
    client = contenders.python_client("tcp-raw")(target, workload.method, 5.0)
    call = client.call
    cpu, start = time.process_time_ns(), time.perf_counter_ns()
    for _ in range(calls):
        call(frame)
    elapsed, spent = time.perf_counter_ns() - start, time.process_time_ns() - cpu
    reply, _ = call(frame)
    client.close()
    if reply != frame[HEADER.size:]:
        raise SystemExit("bare loop: wrong echo")
    return elapsed / calls / 1e3, spent / calls / 1e3


def driver_loop(target: str, calls: int, sample_limit: int = 10_000) -> tuple[float, float]:
    """Microseconds per call (wall, this process's CPU) of rpcarena's Python driver, same echo, one client."""
    workload = seeds.WORKLOADS[WORKLOAD]
    spec = DriveSpec(contender="tcp-raw", target=target, method=workload.method, requests=workload.requests,
                     responses=workload.responses, calls=calls, sample_limit=sample_limit)
    cpu = time.process_time_ns()
    result = Driver(spec).run()
    spent = time.process_time_ns() - cpu
    if result.calls != calls or result.error_counts:
        raise SystemExit(f"driver: {result.calls} calls, errors {result.error_counts}")
    return result.wall_s / calls * 1e6, spent / calls / 1e3


def frame_of(target: str) -> bytes:
    workload = seeds.WORKLOADS[WORKLOAD]
    client = contenders.python_client("tcp-raw")(target, workload.method, 5.0)
    frame = client.prepare(workload.requests[0])
    client.close()
    return frame


def report(which: str, bare: list[float], harness: list[float]) -> None:
    b, h = statistics.median(bare), statistics.median(harness)
    print(f"  {which:4s} bare loop      {b:8.2f} us/call   (rounds: {', '.join(f'{x:.2f}' for x in bare)})")
    print(f"  {which:4s} rpcarena loop  {h:8.2f} us/call   (rounds: {', '.join(f'{x:.2f}' for x in harness)})")
    print(f"  {which:4s} overhead       {h - b:8.2f} us/call   ratio {h / b:.2f}x   target < 5 us: "
          f"{'met' if h - b < 5 else 'NOT met'}")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of each loop")
    parser.add_argument("--memory-max", type=int, default=1_000_000, help="largest call count of the memory check")
    args = parser.parse_args()
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})  # both ends on one CPU: the overhead, not the wake-up cost
    log = Path(tempfile.mkdtemp()) / "server.log"
    with ServerProcess(contenders.get("tcp-raw"), "127.0.0.1", (cpu,), log) as server:
        server.start()
        frame = frame_of(server.target)
        bare_loop(server.target, frame, 2000)  # warm both paths
        driver_loop(server.target, 2000)
        bare, harness = [], []
        for _ in range(args.rounds):
            bare.append(bare_loop(server.target, frame, args.calls))
            harness.append(driver_loop(server.target, args.calls))
        print(f"tcp-raw echo of {WORKLOAD}, {args.rounds} alternating rounds of {args.calls} calls, CPU {cpu}, "
              f"load average {os.getloadavg()[0]:.1f}")
        for which, index in (("wall", 0), ("CPU", 1)):
            report(which, [r[index] for r in bare], [r[index] for r in harness])
        print("memory: peak RSS of this process after the driver ran N calls")
        sizes = [n for n in (10_000, 100_000, 1_000_000) if n <= args.memory_max]
        first = None
        for n in sizes:
            per_call, _ = driver_loop(server.target, n)
            rss = peak_rss_mib()
            first = first or rss
            print(f"  {n:>9,} calls   {per_call:6.2f} us/call   peak RSS {rss:7.1f} MiB   (+{rss - first:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
