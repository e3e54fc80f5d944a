"""Cells grouped across trials: what reports, comparisons and suite findings reason about.

A group is one (contender, client, workload, concurrency): its K trials (`--repeat K`)
are the same measurement repeated with a fresh server, so their samples are pooled
for plots, and two groups are compared trial by trial (`ratio`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rpcarena.analysis import stats
from rpcarena.results import Cell

Key = tuple[str, str, str, int]  # contender, client, workload, clients


def key_of(cell: Cell) -> Key:
    return (cell.contender, cell.client, cell.workload, cell.clients)


def own_client(cell: Cell) -> bool:
    """Whether the cell's client is its contender's own: of its language, with no way of calling the contender
    does not name (rpyc-tuple's py-tuple is its own; rest-fastapi's py-newconn, py-requests and rest-axum's
    rust-h1 are not: a label that left them out would pass a new connection per request for keep-alive)."""
    family, *ways = cell.client.split("-")
    return cell.client in ("", cell.language) or (family.replace("py", "python") == cell.language
                                                  and set(ways) <= set(cell.contender.split("-")))


@dataclass
class Group:
    """The ok trials of one (contender, client, workload, clients)."""

    cells: list[Cell]
    trimmed: bool = False
    source: str = ""
    named_client: bool = False  # its label says its client even when it is of the contender's language

    @property
    def key(self) -> Key:
        return key_of(self.cells[0])

    @property
    def contender(self) -> str:
        return self.cells[0].contender

    @property
    def workload(self) -> str:
        return self.cells[0].workload

    @property
    def clients(self) -> int:
        return self.cells[0].clients

    @property
    def label(self) -> str:
        """contender, plus the client when it is not the contender's own (`own_client`) or when the report
        has the contender driven by several clients (`named_client`), plus the source file."""
        cell = self.cells[0]
        own = own_client(cell) and not self.named_client
        name = cell.contender if own else f"{cell.contender}<-{cell.client}"
        name = f"{name} ({cell.setting})" if cell.setting else name
        return f"{self.source}:{name}" if self.source else name

    @cached_property
    def trials(self) -> list[np.ndarray]:
        """Latency samples in µs per trial, trimmed when the group is."""
        raw = [stats.samples_us(c.samples_ns) for c in self.cells]
        return [stats.trim(t) if self.trimmed else t for t in raw if t.size]

    @property
    def samples(self) -> np.ndarray:
        return np.concatenate(self.trials) if self.trials else np.empty(0)

    @property
    def has_samples(self) -> bool:
        return bool(self.trials)

    def per_trial(self, statistic: str) -> list[float]:
        """One value per trial: 'median', 'p99' or 'mean' of its samples (µs), or 'cpu_us_per_call'
        (client and server CPU per call, from trials where both were measured)."""
        if statistic == "cpu_us_per_call":
            pairs = [(c.client_cpu_us_per_call, c.server_cpu_us_per_call) for c in self.cells]
            return [a + b for a, b in pairs if a is not None and b is not None]
        return stats.per_trial(self.trials, statistic)

    def across_trials(self, statistic: str) -> float | None:
        """The geometric mean of the positive per-trial values (what `ratio` compares), or None."""
        values = [v for v in self.per_trial(statistic) if v > 0]
        return float(np.exp(np.mean(np.log(values)))) if values else None

    def _mean(self, values: Iterable[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return float(np.mean(present)) if present else None

    @property
    def calls(self) -> int:
        return sum(c.calls for c in self.cells)

    @property
    def throughput_per_s(self) -> float | None:
        return self._mean(c.throughput_per_s for c in self.cells)

    @property
    def client_cpu_us_per_call(self) -> float | None:
        return self._mean(c.client_cpu_us_per_call for c in self.cells)

    @property
    def server_cpu_us_per_call(self) -> float | None:
        return self._mean(c.server_cpu_us_per_call for c in self.cells)

    @property
    def payload_bytes_per_call(self) -> float | None:
        return self._mean(c.payload_bytes_per_call for c in self.cells)

    @property
    def messages_per_s(self) -> float | None:
        return self._mean(c.messages_per_s for c in self.cells)

    def message_stat(self, name: str) -> float | None:
        """A statistic of a stream's per-message latency ('p50_us'), averaged over trials; None for unary calls."""
        return self._mean(c.message_latency.get(name) for c in self.cells)

    def histogram_stat(self, name: str) -> float | None:
        """A statistic of the HdrHistograms (untrimmed), averaged over trials."""
        return self._mean(c.latency.get(name) for c in self.cells)


def ratio(numerator: Group, denominator: Group, statistic: str, between: float = 0.0) -> stats.Ratio | None:
    """numerator / denominator of a per-trial statistic over their trials (see `stats.trial_ratio`;
    `between` stats.RUN_TO_RUN when they come from separate runs); None when a side has no trial
    with a positive value."""
    a = [v for v in numerator.per_trial(statistic) if v > 0]
    b = [v for v in denominator.per_trial(statistic) if v > 0]
    return stats.trial_ratio(a, b, between) if a and b else None


def group(cells: Iterable[Cell], trimmed: bool = False, source: str = "") -> list[Group]:
    """The ok cells with calls, grouped by key, in first-seen order. Trials over different networks
    (cell.setting) are never pooled, nor cells at different open-loop rates: --find-max's probes
    are not trials of one measurement, and their spread says nothing about the run's stability."""
    found: dict[tuple[Key, str | None, float | None], list[Cell]] = {}
    for cell in cells:
        if cell.status == "ok" and cell.calls:
            found.setdefault((key_of(cell), cell.setting, cell.rate_per_s), []).append(cell)
    return [Group(sorted(c, key=lambda x: x.trial), trimmed, source) for c in found.values()]
