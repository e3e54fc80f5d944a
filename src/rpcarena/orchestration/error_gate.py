"""When a measured cell is failed: one rule for every runner, command and client language.

"ok" is a claim that every call of the cell was answered right. So a cell whose failed calls
exceed `--max-error-rate` (a share of the calls sent; 0 by default: none may fail), or that
completed no call at all, is failed, its figures kept and its error kinds and one example in
its reason. The arena applies it to whatever a runner measured (a contender's fresh server, a
target, a cluster's nodes), so no runner can forget it.

A failed cell is of one of two kinds, told apart by the exit code: failed calls past the gate
(3, as a threshold: the run went through and what it measured fails the user's gate), or a
cell that measured nothing (1, a broken run: no call completed, a server or worker died).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Protocol

from rpcarena.errors import ArenaError, ThresholdFailed
from rpcarena.orchestration.measurement import Measurement


class Counted(Protocol):
    """What the gate reads of a cell's calls: a merged drive result, or a stored cell."""

    @property
    def calls(self) -> int: ...

    @property
    def errors(self) -> Mapping[str, int]: ...

    @property
    def error_examples(self) -> Mapping[str, str]: ...


class Judged(Counted, Protocol):
    """A stored cell, as the exit code reads it."""

    @property
    def status(self) -> str: ...


def reason(counted: Counted, max_error_rate: float | None) -> str | None:
    """Why the cell is failed, or None when it is ok; `max_error_rate` None: no gate at all (a
    --find-max search probes past failures on purpose)."""
    if max_error_rate is None:
        return None
    return past_gate(counted, max_error_rate) or _nothing_completed(counted, max_error_rate)


def gated(measured: Measurement, max_error_rate: float | None) -> Measurement:
    """The measurement, failed (its figures kept) when the gate fails it."""
    why = None if measured.failed else reason(measured.clients, max_error_rate)
    return replace(measured, failed=why) if why else measured


def past_gate(counted: Counted, max_error_rate: float) -> str | None:
    """'1,500 of 1,500 calls failed (100.0%: wrong_answer 1,500), above --max-error-rate 0%; e.g. ...',
    or None when the failed calls are within the rate."""
    errors = _errors(counted)
    failed = sum(errors.values())
    sent = counted.calls + failed
    if not sent or failed / sent <= max_error_rate:
        return None
    return (f"{failed:,} of {sent:,} calls failed ({failed / sent:.1%}: {_kinds(errors)}), above --max-error-rate "
            f"{max_error_rate * 100:g}%{_example(counted, errors)}")


def _nothing_completed(counted: Counted, max_error_rate: float) -> str | None:
    if counted.calls:
        return None
    errors = _errors(counted)
    if not errors:
        return "no call completed and none failed: the drivers measured nothing (see the cell's logs)"
    failed = sum(errors.values())
    return (f"no call completed: {failed:,} of {failed:,} calls failed ({_kinds(errors)}), within --max-error-rate "
            f"{max_error_rate * 100:g}% but nothing was measured{_example(counted, errors)}")


def _errors(counted: Counted) -> dict[str, int]:
    return {kind: int(n) for kind, n in counted.errors.items() if n}


def _kinds(errors: Mapping[str, int]) -> str:
    return ", ".join(f"{kind} {n:,}" for kind, n in sorted(errors.items()))


def _example(counted: Counted, errors: Mapping[str, int]) -> str:
    """'; e.g. timeout: ...': the commonest kind's example, when the drivers gave one."""
    worst = max(errors, key=lambda kind: errors[kind])
    said = counted.error_examples.get(worst)
    return f"; e.g. {worst}: {example(worst, said)}" if said else ""


def example(kind: str, text: str) -> str:
    """An error example without its kind in front (the Go driver's examples start with it, and the
    kind is printed before them: 'timeout: timeout: ...')."""
    return text.removeprefix(f"{kind}: ") or text


def exit_error(cells: Iterable[Judged], failures: list[str], where: object,
               max_error_rate: float | None) -> ArenaError | None:
    """The error a command ends with when cells failed, or None: ThresholdFailed (exit 3) when each
    failed cell failed only by its failed calls past the gate, else ArenaError (exit 1: a cell
    measured nothing, a server or worker died), also when both kinds occur."""
    failed = [c for c in cells if c.status == "failed"]
    if not failed and not failures:
        return None
    said = failures or ["a cell failed"]
    more = f" (and {len(said) - 1} more)" if len(said) > 1 else ""
    message = f"{len(said)} cell(s) failed, first: {said[0]}{more}; the others are kept in {where}"
    gate_only = bool(failed) and max_error_rate is not None and all(
        past_gate(c, max_error_rate) for c in failed)
    return ThresholdFailed(message) if gate_only else ArenaError(message)
