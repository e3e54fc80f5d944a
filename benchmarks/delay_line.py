"""The delay line's capacity and CPU per packet (the emulated link of --link, delayline/).

Offers UDP datagrams through a 10 ms link at rising packet rates, the load on CPU 0 and the
delay line on CPU 1 (as a run places it beside the clients), and prints, per rate, the
median and p99 one-way delay, how much each exceeds the configured 5 ms, and the delay
line's CPU per packet. Its capacity is the highest rate that adds less than 10%.

    .venv/bin/python benchmarks/delay_line.py [--link rtt=10ms] [--rates 1000,5000,20000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rpcarena.network import link  # noqa: E402
from rpcarena.process import builds  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--link", default="rtt=10ms", help="the link model (no loss or rate: they drop or queue)")
    parser.add_argument("--rates", default="1000,2000,5000,10000,20000,40000", help="packets/s, rising")
    args = parser.parse_args()
    reason = link.unavailable()
    if reason:
        print(f"delay_line: {reason}", file=sys.stderr)
        return 2
    tool = builds.tool("delayline")
    tool.ensure_built()
    with tempfile.TemporaryDirectory(prefix="rpcarena-delaybench-") as folder:
        bench = Path(folder) / "delaybench"
        subprocess.run(["go", "build", "-o", str(bench), "./cmd/delaybench"], cwd=ROOT / "delayline", check=True)
        done = subprocess.run(["taskset", "-c", "0", str(bench), "-delayline", f"{tool.artifact()}-line",
                               "-cpus", "1", "-link", args.link, "-rates", args.rates], check=False)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
