"""µs and bytes per call, side by side: grpc-py vs tagless vs typed-json vs thrift vs rest-fastapi.

The hprpc2016 comparison (SayHello, Average(10000), GetRandNums(10000),
LargeData128...8192) for every contender of issue 6, in one run of the arena
library, printed as a table with ratios against grpc-py. Bytes per call are the
TCP payload both ways, counted by the kernel on the server port (needs root and
nft; without them the byte columns are empty).

    .venv/bin/python benchmarks/wire_bytes.py [--calls 1000] [--warmup 1] [--out results/wire_bytes.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rpcarena.config import RunConfig
from rpcarena.errors import ArenaError
from rpcarena.orchestration.arena import Arena
from rpcarena.orchestration.contender_cells import plans
from rpcarena.seeds.hprpc2016.workloads import LARGE_SIZES

CONTENDERS = ["grpc-py", "tagless", "typed-json", "thrift-binary", "thrift-compact", "rest-fastapi"]
WORKLOADS = ["hprpc.hello", "hprpc.average10000", "hprpc.randnums10000"] + [
    f"hprpc.large{n}" for n in LARGE_SIZES]
BASELINE = "grpc-py"


def measure(calls: int, warmup_s: float, out: Path) -> dict[tuple[str, str], tuple[float | None, float | None]]:
    """(contender, workload) -> (p50 µs, payload bytes per call)."""
    config = RunConfig(contenders=CONTENDERS, workloads=WORKLOADS, calls=calls, warmup_s=warmup_s, out=out)
    cells = {}
    for cell in Arena(config, plans(config)).run().cells:
        p50 = cell.latency.get("p50_us") if cell.status == "ok" and cell.calls else None
        cells[(cell.contender, cell.workload)] = (p50, cell.payload_bytes_per_call)
    return cells


def _fmt(value: float | None, base: float | None) -> str:
    if value is None:
        return f"{'-':>17}"
    ratio = f"({value / base:.2f}x)" if base else ""
    return f"{value:>9,.0f} {ratio:>7}"


def table(cells: dict) -> str:
    """Rows per workload, two columns (µs p50, bytes) per contender, ratios to grpc-py."""
    lines = []
    for title, index in (("p50 µs per call (ratio to grpc-py)", 0), ("payload bytes per call (ratio)", 1)):
        lines.append(title)
        lines.append(f"{'workload':<22}" + "".join(f"{c:>18}" for c in CONTENDERS))
        for workload in WORKLOADS:
            base = cells.get((BASELINE, workload), (None, None))[index]
            row = "".join(" " + _fmt(cells.get((c, workload), (None, None))[index], base) for c in CONTENDERS)
            lines.append(f"{workload:<22}{row}")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=Path("results/wire_bytes.json"))
    args = parser.parse_args()
    try:
        cells = measure(args.calls, args.warmup, args.out)
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(table(cells))
    print(f"cells: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
