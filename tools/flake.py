#!/usr/bin/env python3
"""Run test files again and again with every CPU taken by a busy loop, and report what failed.

CI's worst case is a machine whose cores something else keeps busy; a test that starts processes
must pass there too (no timing it can lose). This runs each FILE (or FILE::TEST) `--runs` times,
one pytest at a time, with `--loops` busy loops (default: one per CPU) spinning beside it, and prints
a line per run and, at the end, each failed test with how many of its file's runs it failed in.
Exits 1 when any run failed. The loops end with it (normally, on Ctrl-C or SIGTERM).

    python tools/flake.py tests/e2e/test_fault_drill.py -n 3
    python tools/flake.py $(python tools/flake.py --starting) -n 3 -m e2e --report flake.txt
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)")
SUMMARY = re.compile(r"^=*\s*(.*\d+ (?:passed|failed|skipped|error).*?)\s*=*$")


@contextlib.contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """`count` processes spinning on a CPU each, killed on the way out."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(loop.pid, signal.SIGKILL)
            loop.wait()


def run_once(target: str, python: str, timeout_s: float, marks: str | None,
             log: Path | None = None) -> tuple[list[str], str, float]:
    """One pytest of the target (its tests of `marks` only, when given): the failed tests' ids, its
    summary line, its wall time; its whole output kept in `log` when given."""
    start = time.monotonic()
    selected = ["-m", marks] if marks else []
    try:
        done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selected, target],
                              cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, check=False)
        out = done.stdout
    except subprocess.TimeoutExpired as late:
        out = (late.stdout or b"").decode() if isinstance(late.stdout, bytes) else (late.stdout or "")
        return [f"{target} (timed out after {timeout_s:.0f} s)"], "timed out", time.monotonic() - start
    if log is not None:
        log.write_text(out + (done.stderr or ""))
    failed = [m.group(1) for line in out.splitlines() if (m := FAILED.match(line))]
    summary = next((m.group(1) for line in reversed(out.splitlines()) if (m := SUMMARY.match(line))), "no summary")
    if done.returncode not in (0, 5) and not failed:  # pytest itself failed (collection, a crash)
        failed = [f"{target} (pytest exited {done.returncode})"]
    return failed, summary, time.monotonic() - start


def starting_files() -> list[str]:
    """Every test file with a test that starts a process (the e2e tier), from pytest's collection."""
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "e2e", "-p", "no:cacheprovider"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    return sorted({line.partition("::")[0] for line in done.stdout.splitlines() if "::" in line})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("targets", nargs="*", help="test files (or FILE::TEST ids), relative to the checkout")
    parser.add_argument("-n", "--runs", type=int, default=3, help="runs of each target (default 3)")
    parser.add_argument("--loops", type=int, default=os.cpu_count() or 2, help="busy loops (default: one per CPU)")
    parser.add_argument("-m", "--marks", help="only the tests of this marker expression, e.g. e2e (default: all)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds one run may take (default 3600)")
    parser.add_argument("--report", type=Path, help="also write the report to this file")
    parser.add_argument("--logs", type=Path, help="keep each run's pytest output in this folder")
    parser.add_argument("--starting", action="store_true", help="print the files that start processes, and exit")
    args = parser.parse_args()
    if args.starting:
        print("\n".join(starting_files()))
        return 0
    if not args.targets:
        parser.error("give test files, e.g. tests/e2e/test_fault_drill.py (--starting lists the e2e ones)")
    lines, failures, runs = [], Counter[str](), Counter[str]()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # through the loops' cleanup
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    with busy_loops(args.loops):
        for target in args.targets:
            for k in range(1, args.runs + 1):
                log = args.logs / f"{target.replace('/', '_').replace(':', '_')}.{k}.log" if args.logs else None
                failed, summary, took = run_once(target, sys.executable, args.timeout, args.marks, log)
                runs[target] += 1
                failures.update(failed)
                lines.append(f"{target} run {k}/{args.runs}: {summary} ({took:.0f} s)"
                             + "".join(f"\n  failed: {test}" for test in failed))
                print(lines[-1], flush=True)
    lines.append(f"{sum(runs.values())} runs of {len(runs)} targets under {args.loops} busy loops: "
                 f"{sum(failures.values())} failures" + ("" if failures else ", none"))
    lines += [f"  {test} failed {count} time(s)" for test, count in failures.most_common()]
    print("\n".join(lines[-1 - len(failures):]))
    if args.report:
        args.report.write_text("\n".join(lines) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
