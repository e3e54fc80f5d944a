"""Options shared by the commands: one definition each, and the conventions every command keeps.

Every command is made by `command` (no option taken by its prefix, a description and examples
in --help, -q/-v); the output options and the exit codes are the same everywhere.

A measurement option left out is None here, not its default: the defaults are RunConfig's
(or, for `run --resume`, the resumed document's), so that what was typed can be told apart
from what was not.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypedDict

from rpcarena import thresholds
from rpcarena.analysis import gate, slo
from rpcarena.config import parse_duration, parse_ints, parse_rate
from rpcarena.errors import ArenaError, ThresholdAborted, ThresholdFailed, UsageError
from rpcarena.files import output
from rpcarena.record.intervals import LiveInterval
from rpcarena.results import Cell

DEFAULT_WARMUP = "1s"

# Exit codes, documented in the README and `rpcarena --help`; the errors carry the same ones.
EXIT_OK = 0
# (orchestration.error_gate: which a failed cell makes, the same for run, suite, target and --resume)
EXIT_RUNTIME = ArenaError.exit_code  # 1: a cell measured nothing, a server died, a worker broke its contract
EXIT_USAGE = UsageError.exit_code  # 2: bad input: an option, a path, a document
EXIT_FAILED = ThresholdFailed.exit_code  # 3: a gate failed (--max-error-rate, --threshold, --fail-if-slower)
EXIT_CODES = f"""exit codes:
  {EXIT_OK}  ok
  {EXIT_RUNTIME}  runtime error (a cell measured nothing: no call completed, a server or worker died); also
     when cells failed both ways
  {EXIT_USAGE}  usage error (bad option, path or document)
  {EXIT_FAILED}  a gate failed: a cell's failed calls above --max-error-rate, a --threshold, or
     compare --fail-if-slower
  128+N  stopped by signal N (130 for Ctrl-C); the cells measured so far are kept"""
OUTPUT_FORMATS = ("table", "json", "csv", "markdown")
# Other tools' spellings of rpcarena's options (ghz, hey, wrk, wrk2, k6, vegeta, hyperfine, pyperf): a
# user who types theirs is told rpcarena's, rather than the nearest name that happens to look alike.
PEER_OPTIONS = {
    "--rps": "--rate", "-R": "--rate", "--qps": "--rate", "-d": "-z/--duration", "--concurrency": "-c/--clients",
    "-t": "-c/--clients", "--total": "-n/--calls", "--requests": "-n/--calls", "--call": "--method",
    "--runs": "--repeat", "--processes": "--repeat", "--latency": "--wide",
}


class Subcommands(Protocol):
    """Where a command adds its parser: argparse's subparsers, whichever parser class the top one makes."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def command(sub: Subcommands, name: str, summary: str, description: str,
            examples: list[str], verbose: bool = False, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand as every command is made: never an option by its prefix, a description and
    examples in its --help, -q/-v (-v's help only where it means something: `verbose`)."""
    lines = "\n".join(f"  {line}" for line in examples)
    epilog = kwargs.pop("epilog", f"examples:\n{lines}")
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=summary, description=textwrap.fill(description, 88), epilog=epilog, allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)
    add_verbosity(p, verbose)
    return p


def add_verbosity(p: argparse._ActionsContainer, verbose: bool = True) -> None:
    """-q, and -v where a command measures cells (elsewhere still taken, so scripts keep working, but
    not offered: it changes nothing there)."""
    p.add_argument("-q", "--quiet", action="store_true", help="no progress and no notes: the answer only")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="more: a line per cell on a terminal too, and the full table after the summary"
                   if verbose else argparse.SUPPRESS)


def add_output_options(p: argparse._ActionsContainer) -> None:
    """How results are shown: the summary, the full table, or a document on stdout."""
    p.add_argument("--format", choices=OUTPUT_FORMATS, default="table",
                   help="table (default: the summary, the full table with --wide), json, csv or markdown, "
                        "on stdout")
    p.add_argument("--wide", action="store_true", help="the full table, one row per cell (every column that fits)")


def add_measure_options(p: argparse._ActionsContainer) -> None:
    """How cells are measured: shared by `run`, `target` and any command that measures."""
    p.add_argument("-c", "--clients", help="concurrency levels, e.g. 1,8,32 (default 1)")
    p.add_argument("--connections", type=int, metavar="M",
                   help="the clients share M connections (gRPC: M channels, many calls in flight on each; "
                        "HTTP/1.1, Thrift: a pool, a call waits for a free one); default one per client")
    p.add_argument("-n", "--calls", type=int, help="measured calls per cell (default 1000 unless --duration)")
    p.add_argument("-z", "--duration", help="measure for a time instead of a count, e.g. 10s")
    p.add_argument("--warmup", help=f"warm-up per cell, discarded: a duration (default {DEFAULT_WARMUP}); "
                                    "unlike hyperfine's and pyperf's --warmup, not a count of runs")
    p.add_argument("--warmup-max", help="a driver with a JIT (Java) warms up past --warmup until its compiler is "
                                        "quiet, at most this long (default: its worker's, 30s for Java; 0 keeps "
                                        "--warmup)")
    p.add_argument("--repeat", type=int, help="independent trials per cell, each a fresh server (default 1)")
    p.add_argument("--pin", help="CPU placement: split (default), same or none")
    p.add_argument("--timeout", help="per-call timeout, down to 100us (e.g. 2ms, 500us); a later reply is an error "
                                     "of kind timeout, never a sample (default 5s)")
    p.add_argument("--cell-timeout", help="give up on a cell after this long (default 600s)")
    p.add_argument("--samples", type=int, help="raw latencies kept per cell for plots (default 10000)")
    p.add_argument("--interval", help="each cell's time series: one histogram per interval (default 1s)")
    p.add_argument("--rate", help="open loop: calls per second over all clients (1000), or stages of a ramping "
                                  "arrival rate, RATE:DURATION each (500:10s,2000:20s,500:10s)")
    p.add_argument("--arrival", help="open-loop arrivals: constant (default) or poisson")
    p.add_argument("--find-max", action="store_true", help="search the highest rate meeting --slo")
    p.add_argument("--slo", help="latency objective for --find-max, e.g. 'p99<5ms' or 'p99.9<=20ms,mean<1ms'")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failed cell")
    add_max_error_rate_option(p)
    add_threshold_option(p)
    p.add_argument("--report", metavar="PATH", help="also write the HTML report here")


STDOUT = "-"


def add_out_options(p: argparse._ActionsContainer, default: str) -> None:
    p.add_argument("-o", "--out", default=default,
                   help=f"results file (default {default}); - writes the document to stdout at the end")
    p.add_argument("--force", action="store_true", help="overwrite the results file if it exists")


def add_threshold_option(p: argparse._ActionsContainer) -> None:
    p.add_argument("--threshold", action="append", metavar="TERM",
                   help="a CI gate judged per cell, repeatable: 'p99<5ms', 'errors<0.1%%', 'calls/s>1000'; "
                        f"a cell that fails one exits {EXIT_FAILED}; 'p99<5ms:abort' also judges each interval "
                        "the Python driver says as it closes and stops the run at the first that fails")


def add_max_error_rate_option(p: argparse._ActionsContainer) -> None:
    p.add_argument("--max-error-rate", metavar="RATE",
                   help="share of a cell's calls sent that may fail before the cell fails and the command exits "
                        f"{EXIT_FAILED}: a percentage such as 1%% or 0.1%%; 0 (default): none may fail")


class ErrorRateField(TypedDict, total=False):
    """RunConfig's max_error_rate, present only when --max-error-rate was typed."""

    max_error_rate: float


def max_error_rate(args: argparse.Namespace) -> ErrorRateField:
    """--max-error-rate as the RunConfig field, when typed."""
    text = getattr(args, "max_error_rate", None)
    return {} if text is None else {"max_error_rate": thresholds.share(text, "--max-error-rate")}


def threshold_gate(args: argparse.Namespace) -> list[gate.Threshold]:
    """--threshold terms, parsed (refused before anything starts, not once the cells are measured)."""
    return [gate.parse(text) for text in getattr(args, "threshold", None) or []]


def judge_thresholds(cells: list[Cell], terms: list[gate.Threshold]) -> None:
    """Exit 3 (ThresholdFailed) naming the first cell, statistic and value that failed a --threshold."""
    failed = gate.failures(cells, terms)
    if failed:
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise ThresholdFailed(f"{len(failed)} threshold(s) failed: {failed[0]}{more}")


def aborting(terms: list[gate.Threshold]) -> Callable[[LiveInterval], None] | None:
    """The check of each closed interval of the running cell against the '...:abort' terms, if any:
    it stops the run (exit 3) at the first that fails."""
    terms = [t for t in terms if t.abort]
    if not terms:
        return None

    def check(live: LiveInterval) -> None:
        failed = gate.failed_interval(terms, live)
        if failed:
            raise ThresholdAborted(failed)
    return check


def measure_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The measurement options typed on the command line, as RunConfig fields (only those typed)."""
    threshold_gate(args)
    if args.slo is not None and not args.find_max:
        raise UsageError("--slo is the objective of --find-max: add --find-max, or drop --slo")
    if args.slo is not None:
        slo.parse(args.slo)  # refused before anything starts, not once the search begins
    if args.find_max and args.rate is not None:  # the search sets the rate of each probe
        raise UsageError("--find-max searches the rate itself: drop --rate")
    if args.calls is not None and args.duration is not None:  # one would silently win
        raise UsageError("-n/--calls and -z/--duration both given: a cell measures a count of calls or a time, "
                         "keep one")
    given: dict[str, Any] = {
        "clients": parse_ints(args.clients, "--clients") if args.clients is not None else None,
        "calls": args.calls, "duration_s": parse_duration(args.duration, "--duration"),
        "warmup_s": parse_duration(args.warmup, "--warmup"),
        "warmup_max_s": parse_duration(args.warmup_max, "--warmup-max"), "repeat": args.repeat, "pin": args.pin,
        "timeout_ms": _ms(parse_duration(args.timeout, "--timeout")),
        "cell_timeout_s": parse_duration(args.cell_timeout, "--cell-timeout"), "sample_limit": args.samples,
        **_rates(args.rate), "arrival": args.arrival, "fail_fast": args.fail_fast or None,
        "interval_s": parse_duration(args.interval, "--interval"), "connections": args.connections,
        **max_error_rate(args)}
    return {name: value for name, value in given.items() if value is not None}


def _rates(text: str | None) -> dict[str, Any]:
    rate_per_s, stages = parse_rate(text)
    return {"rate_per_s": rate_per_s, "rate_stages": stages}


def _ms(seconds: float | None) -> float | None:
    """Milliseconds to the microsecond (a whole number stays one: 5000, not 5000.0)."""
    if seconds is None:
        return None
    ms = round(seconds * 1e6) / 1000
    return int(ms) if ms.is_integer() else ms


def writable_file(text: str, option: str) -> Path:
    """A file path that can be written: not empty, not a folder, in a folder files can be made in."""
    if not text.strip():
        raise UsageError(f"bad {option} '': give a file name, e.g. results/run.json")
    path = Path(text)
    if path.is_dir():
        raise UsageError(f"bad {option} {path}: it is a folder; give a file in it, e.g. {path / 'run.json'}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".check"):
            pass
    except OSError as error:
        raise UsageError(f"bad {option} {path}: files cannot be made in {path.parent} "
                         f"({error.strerror or error}): give a writable path") from None
    return path


def stdout_file() -> str:
    """Where `--out -` keeps the document while it is measured (saved after every cell, as any results
    file, its logs beside it as any run's); it goes to stdout at the end, and stays for --resume only when
    the run is interrupted or a cell failed."""
    return str(Path("results") / f".stdout-{os.getpid()}.json")


def new_results_file(text: str, option: str, force: bool, resume: bool) -> Path:
    """--out: writable, and an existing results file is never overwritten silently."""
    path = writable_file(text, option)
    if path.exists() and not force:
        how = f"`rpcarena run --resume {path}` measures only its missing cells, " if resume else ""
        raise UsageError(f"{path} exists: {how}--force overwrites it, or give {option} another file")
    return path


def spare_results(text: str, option: str, force: bool) -> None:
    """An output that is not a results file (a report, an export), checked before anything is measured
    or read: never over a results document without --force (recognised by its content, whatever its
    name), never through a link, onto a device, a FIFO or a folder (the writer checks again)."""
    if text != STDOUT:
        output.check(Path(writable_file(text, option)), option, force)


def report_file(text: str, out: Path, force: bool) -> Path:
    """--report: writable, never the results file of the same command, and never over another results
    document without --force."""
    path = writable_file(text, "--report")
    if path.resolve() == out.resolve():
        raise UsageError(f"--report {text} is the results file (--out) itself: give the report a file of its own, "
                         "e.g. report.html")
    spare_results(text, "--report", force)
    return path


def add_debug_option(p: argparse._ActionsContainer) -> None:
    """--debug-mode, left out of --help as hyperfine leaves its own: every cell made up, nothing started
    (orchestration.debug_cells), for tests of what a command prints, writes and exits with."""
    p.add_argument("--debug-mode", action="store_true", help=argparse.SUPPRESS)


def add_cluster_options(p: argparse._ActionsContainer) -> None:
    """Where cells run on a Dask cluster (docs/cluster.md)."""
    p.add_argument("--cluster", metavar="SPEC",
                   help="servers and clients on a Dask cluster's nodes: a scheduler (tcp://HOST:8786), "
                        "ssh:HOST_A,HOST_B, local:N, or netns:rtt=10ms[,clients=N] (an emulated link here)")
    p.add_argument("--server-node", metavar="NODE",
                   help="the node that serves: a worker's address, name, host or resource:NAME (default: the worker "
                        "named or with the resource 'server', else the first)")
    p.add_argument("--client-nodes", metavar="NODES",
                   help="the nodes that drive, comma-separated like --server-node (default: every other node)")
