"""The timing claims the tests no longer assert, measured and printed (tests assert counts and shapes).

- stall: an open-loop run at 100/s whose server is stopped for 0.3 s; the corrected histogram (from
  the intended send) holds the stall in its tail, the uncorrected one (from the actual send) hides it
  (wrk2's coordinated omission), and the calls scheduled during the stall are counted late;
- nagle: rpyc's calls with list arguments wait on the delayed ACK (~40 ms multiples) and are flagged,
  rpyc-nodelay's and grpc-py's are not;
- link: across `--link rtt=20ms,jitter=1ms` no call returns sooner than 16 ms and the link's round
  trip measured before the cell is at least that (needs root and the delay line: skipped without).

    .venv/bin/python benchmarks/timing_claims.py [--only stall,nagle,link]

Each claim prints its numbers and "holds" or "FAILS"; the exit status is 1 when one fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from rpcarena.analysis import stability
from rpcarena.config import RunConfig
from rpcarena.network import link
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.record import hist
from rpcarena.results import load

STALL_S = 0.3
RATE_PER_S = 100
LINK_FLOOR_NS = 16_000_000  # rtt=20ms less 2 SDs of jitter each way


def _server(cli: psutil.Process, contender: str, timeout_s: float = 60.0) -> psutil.Process:
    """The server process the CLI started, once its drivers are up (bounded in time)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        family = [(p, _argv(p)) for p in cli.children(recursive=True)]
        servers = [p for p, argv in family if "rpcarena.python_server.serve" in argv and contender in argv]
        if servers and any("rpcarena.worker.drive" in argv for _, argv in family):
            return servers[0]
        time.sleep(0.1)
    raise TimeoutError(f"no {contender} server with drivers after {timeout_s:.0f} s")


def _argv(process: psutil.Process) -> list[str]:
    """A process's command line, or nothing once it has gone (a short-lived child between two looks)."""
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def stall(folder: Path) -> bool:
    out = folder / "stall.json"
    cli = subprocess.Popen([sys.executable, "-m", "rpcarena", "run", "--contender", "tcp-raw", "--workload",
                            "usp.int32", "--rate", str(RATE_PER_S), "--duration", "4s", "--warmup", "0",
                            "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = _server(psutil.Process(cli.pid), "tcp-raw")
    time.sleep(1.5)
    server.suspend()
    time.sleep(STALL_S)
    server.resume()
    _, stderr = cli.communicate(timeout=300)
    if cli.returncode != 0:
        print(f"stall: the run failed: {stderr.strip()[-300:]}")
        return False
    (cell,) = load(out).cells
    corrected, uncorrected = cell.histogram, hist.decode(cell.latency_uncorrected_histogram)
    stalled = int(STALL_S * RATE_PER_S)
    tail_ns = corrected.get_value_at_percentile(100 - 100 * (stalled // 3) / cell.calls)
    holds = (tail_ns >= STALL_S / 3 * 1e9 and cell.late_calls >= stalled // 3
             and uncorrected.get_value_at_percentile(99) < corrected.get_value_at_percentile(99))
    print(f"stall: {cell.calls} calls, {cell.late_calls} late (>= {stalled // 3}); "
          f"corrected tail {tail_ns / 1e6:.1f} ms (>= {STALL_S / 3 * 1e3:.0f}); p99 uncorrected "
          f"{uncorrected.get_value_at_percentile(99) / 1e6:.2f} ms < corrected "
          f"{corrected.get_value_at_percentile(99) / 1e6:.2f} ms: {'holds' if holds else 'FAILS'}")
    return holds


def nagle(folder: Path) -> bool:
    config = RunConfig(contenders=["rpyc", "rpyc-nodelay", "grpc-py"], workloads=["usp.distance"], calls=30,
                       warmup_s=0.2, out=folder / "nagle.json")
    cells = {c.contender: c for c in Arena(config, plans(config)).run().cells}
    flagged = {cid: stability.delayed_ack(cell, 2) is not None for cid, cell in cells.items()}
    holds = flagged == {"rpyc": True, "rpyc-nodelay": False, "grpc-py": False}
    p50 = {cid: f"{cell.latency.get('p50_us', 0) / 1e3:.1f} ms" for cid, cell in cells.items()}
    print(f"nagle: p50 {p50}; delayed ACK flagged {flagged}: {'holds' if holds else 'FAILS'}")
    return holds


def link_floor(folder: Path) -> bool:
    reason = link.unavailable()
    if reason:
        print(f"link: skipped ({reason})")
        return True
    config = RunConfig(contenders=["tcp-raw"], workloads=["usp.int32"], calls=20, warmup_s=0,
                       link="rtt=20ms,jitter=1ms", out=folder / "link.json")
    cell = Arena(config, plans(config)).run().cells[0]
    least_ns = cell.histogram.get_min_value()
    holds = least_ns >= LINK_FLOOR_NS and (cell.link_rtt_ms or 0) >= LINK_FLOOR_NS / 1e6
    print(f"link: least call {least_ns / 1e6:.2f} ms, link rtt {cell.link_rtt_ms} ms (both >= "
          f"{LINK_FLOOR_NS / 1e6:.0f}): {'holds' if holds else 'FAILS'}")
    return holds


CLAIMS = {"stall": stall, "nagle": nagle, "link": link_floor}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(CLAIMS), help=f"claims to measure, of {', '.join(CLAIMS)}")
    args = parser.parse_args()
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in CLAIMS]
    if unknown:
        print(f"timing_claims: unknown claim {unknown[0]!r}: use {', '.join(CLAIMS)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rpcarena-timing-") as folder:
        results = [CLAIMS[name](Path(folder)) for name in wanted]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
