"""`--threshold`: a CI gate over a run, as k6's thresholds, judged cell by cell.

'p99<5ms', 'errors<0.1%', 'calls/s>1000': every term names its statistic, a direction and a
limit with its unit (a latency's duration, a share's %, calls per second in the name), parsed
by the rules `--slo` and `--max-error-rate` already follow, so a typo cannot loosen a gate. A
failed threshold names the cell, the statistic, the value measured and the limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rpcarena import thresholds
from rpcarena.analysis import slo
from rpcarena.errors import UsageError
from rpcarena.record.intervals import LiveInterval
from rpcarena.results import Cell

_TERM = re.compile(r"\s*(p\d+(?:\.\d+)?|mean|max|errors|calls/s)\s*(<=|>=|<|>)\s*(.*?)\s*")
_CALLS = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:/s)?")
EXAMPLE = "write e.g. 'p99<5ms', 'errors<0.1%', 'calls/s>1000' or 'p99<5ms:abort'"
ABORT = ":abort"


@dataclass(frozen=True)
class Threshold:
    """One term: `value(cell) op limit` must hold for every measured cell."""

    text: str
    statistic: str
    op: str
    limit: float  # µs for a latency, a share from 0 to 1 for errors, calls per second
    unit: str
    abort: bool = False  # ':abort' (k6's abortOnFail): judged per interval too, the run stopped at the first failure

    def value(self, cell: Cell) -> float:
        if self.statistic == "errors":
            return cell.error_count / cell.calls_sent if cell.calls_sent else 0.0
        if self.statistic == "calls/s":
            return cell.throughput_per_s
        return slo.Objective(self.statistic, True, self.limit).value(cell)

    def holds(self, cell: Cell) -> bool:
        return self.passes(self.value(cell))

    def interval_value(self, live: LiveInterval) -> float | None:
        """The statistic over one closed interval of the running cell; None when it has no calls."""
        if self.statistic == "errors":
            sent = live.calls + live.errors
            return live.errors / sent if sent else None
        if self.statistic == "calls/s":
            return live.calls_per_s
        return live.latency.get(f"{self.statistic}_us")

    def passes(self, value: float) -> bool:
        return {"<": value < self.limit, "<=": value <= self.limit,
                ">": value > self.limit, ">=": value >= self.limit}[self.op]

    def shown(self, value: float) -> str:
        if self.unit == "%":
            return f"{value:.3%}"
        return f"{value:,.1f}/s" if self.unit == "/s" else _duration(value)


def parse(text: str) -> Threshold:
    """One --threshold; a malformed one is a one-line usage error naming the fix."""
    if text.strip().endswith(ABORT):
        return replace(parse(text.strip().removesuffix(ABORT)), text=text.strip(), abort=True)
    match = _TERM.fullmatch(text)
    if not match:
        raise UsageError(f"bad --threshold {text.strip()!r}: {EXAMPLE}")
    statistic, op, limit = match.groups()
    if statistic == "calls/s":
        return _rate(text, op, limit)
    if op in (">", ">="):
        raise UsageError(f"bad --threshold {text.strip()!r}: {statistic} is gated from above ({statistic}<...): "
                         f"{EXAMPLE}")
    if statistic == "errors":
        return Threshold(text.strip(), statistic, op, _share(text, limit), "%")
    latency = slo.objective(f"{statistic}<{limit}", "--threshold")
    return Threshold(text.strip(), statistic, op, latency.limit_us, "us")


def _share(text: str, limit: str) -> float:
    try:
        return thresholds.share(limit, "--threshold")
    except UsageError as error:  # named by the whole term, as every other refusal here is
        raise UsageError(f"bad --threshold {text.strip()!r}: {str(error).partition(': ')[2]}") from None


def _rate(text: str, op: str, limit: str) -> Threshold:
    if op in ("<", "<=") or not _CALLS.fullmatch(limit) or float(limit.removesuffix("/s")) <= 0:
        raise UsageError(f"bad --threshold {text.strip()!r}: calls/s is gated from below by a positive rate, "
                         "e.g. 'calls/s>1000'")
    return Threshold(text.strip(), "calls/s", op, float(limit.removesuffix("/s")), "/s")


def failures(cells: list[Cell], gate: list[Threshold]) -> list[str]:
    """'grpc-py<-py usage.int32 x1 trial 0: p99 10.2ms, not <1ms' for each measured cell and term that fails."""
    out = []
    for cell in cells:
        if cell.status != "ok":
            continue  # a failed cell fails the run on its own; an unsupported one measured nothing
        for term in gate:
            value = term.value(cell)
            if not term.holds(cell):
                out.append(f"{_cell(cell)}: {term.statistic} {term.shown(value)}, not {term.op}"
                           f"{term.shown(term.limit)} (--threshold '{term.text}')")
    return out


def failed_interval(terms: list[Threshold], live: LiveInterval) -> str | None:
    """'p99 12.1ms in the interval at 3s, not <5ms (--threshold 'p99<5ms:abort')' for the first
    aborting term that the running cell's last interval fails; None when all hold."""
    for term in terms:
        value = term.interval_value(live)
        if term.abort and value is not None and not term.passes(value):
            return (f"{term.statistic} {term.shown(value)} in the interval at {live.start_s:g}s, not {term.op}"
                    f"{term.shown(term.limit)} (--threshold '{term.text}')")
    return None


def _cell(cell: Cell) -> str:
    return f"{cell.contender}<-{cell.client} {cell.workload} x{cell.clients} trial {cell.trial_number}"


def _duration(us: float) -> str:
    return f"{us / 1000:.3g}ms" if us >= 1000 else f"{us:.3g}us"
