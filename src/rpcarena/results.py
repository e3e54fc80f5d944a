"""The results document: versioned JSON, raw histograms kept, statistics recomputed.

A run is a list of cells (contender x client x workload x concurrency x trial).
Each cell keeps its HdrHistograms and a bounded raw sample; every percentile,
mean or CV is computed from them on load, never stored. Units are in the key
names. The document is written whole, atomically, at a run's ends (its start, its finish, every
stop); each cell between is appended to a journal beside it (`files.journal`) as it is measured,
so saving costs the same at the thousandth cell as at the first, and a crash loses at most the
cell in flight. Reading a document reads its journal too.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

from rpcarena.errors import UsageError
from rpcarena.files import inputs, journal, output, recognise
from rpcarena.network import wire
from rpcarena.record import hist, intervals, trend
from rpcarena.record.intervals import IntervalEntry, ServerIntervalEntry

FORMAT = recognise.FORMAT
VERSION = 2  # 2: the run's notes are typed keys of their own (version 1 kept them in "extra")
READABLE_VERSIONS = (1, 2)
# The largest document read: a run's own stay far below (10,000 raw samples per cell), and
# anything larger (a device, a stray file) would be read whole before it could be refused.
MAX_DOCUMENT_BYTES = 256 * 2**20
NOTES = ("placement", "link", "wire_unavailable", "failures", "find_max", "targets", "suite", "resumed", "cluster")


def now() -> str:
    """The time as a results document records it: UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# the statistics fitted across a cell's intervals (Cell.trends), and their columns in `Cell.row`
TREND_KEYS = {"p50_us": "p50_us_per_min", "p99_us": "p99_us_per_min", "server_rss_bytes": "server_rss_bytes_per_min"}


@dataclass(frozen=True)
class Cell:
    """One measured (or skipped) combination; the raw record of what happened."""

    contender: str
    client: str
    workload: str
    method: str
    clients: int
    trial: int = 0
    status: str = "ok"  # ok | failed | unsupported | unavailable
    reason: str | None = None
    calls: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_examples: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0
    latency_histogram: str | None = None
    latency_uncorrected_histogram: str | None = None
    # open loop: each call's lateness in the driver, due -> sent (ns); absent in older documents
    schedule_lag_histogram: str | None = None
    # a call that is a stream (an external target's): its reply messages and each one's latency (ns)
    messages: int | None = None
    message_latency_histogram: str | None = None
    samples_ns: list[list[int]] = field(default_factory=list)
    # the measured phase over time: per interval of `interval_s` its start, calls, errors and histogram
    # (record.intervals); [] for a driver that keeps none, and in documents before 2026-11-26
    intervals: list[IntervalEntry] = field(default_factory=list)
    interval_s: float | None = None
    # the server over time, read by the orchestrator at each interval's end (orchestration.sampler):
    # {start_s, rss_bytes, wire_in_bytes, wire_out_bytes}, None where unread; [] before 2026-11-26 (3)
    server_intervals: list[ServerIntervalEntry] = field(default_factory=list)
    late_calls: int = 0
    retries: int = 0  # calls a client re-sent elsewhere after a failure (fail-over), not errors
    rate_per_s: float | None = None  # with stages: the first stage's
    # --rate stages: each one's rate_per_s, duration_s, calls and latency_histogram,
    # latency_uncorrected_histogram, schedule_lag_histogram (a call counted in the stage it was due in)
    stages: list[dict[str, Any]] = field(default_factory=list)
    via: str | None = None  # "haproxy", or "direct" for a contender the proxy leaves alone
    link: str | None = None  # the emulated link as given (--link), e.g. "wifi"; None: loopback
    link_rtt_ms: float | None = None  # the link's round trip measured (ping) just before the cell
    link_cpu_s: float | None = None  # the delay line's CPU time during the measured phase
    # TCP_NODELAY read back from the connected sockets at each end: True, False, "mixed", None (unread)
    tcp_nodelay: dict[str, Any] = field(default_factory=dict)
    warmup_s: float | None = None
    client_cpu_user_s: float = 0.0
    client_cpu_sys_s: float = 0.0
    client_processes: int = 0
    server_cpu_user_s: float | None = None  # the user/system split, in scheduler ticks (10 ms steps)
    server_cpu_sys_s: float | None = None
    server_cpu_s: float | None = None  # on CPU in all, to the nanosecond (older documents: None)
    wire_in_bytes: int | None = None
    wire_in_packets: int | None = None
    wire_out_bytes: int | None = None
    wire_out_packets: int | None = None
    wire_udp_packets: int | None = None  # of the packets both ways, the UDP ones (HTTP/3); None before 2026-11-28
    server_peak_rss_bytes: int | None = None
    # the server's established connections once the clients were warm (None: not read, or before 2026-11-26)
    server_connections: int | None = None
    server_counters_include_warmup: bool = False
    placement: dict[str, Any] = field(default_factory=dict)
    protocol: str = ""
    language: str = ""
    client_language: str = ""  # py, go, rust, java ("" in documents before 2026-11-26: read from the id)
    client_tool: dict[str, Any] = field(default_factory=dict)
    drift: dict[str, Any] = field(default_factory=dict)
    # the measured phase's other load (process/contention): phase_s, server_waited_s, others_cpu_s
    contention: dict[str, Any] = field(default_factory=dict)
    started: str = ""
    # --cluster: the nodes (each one's result and histogram, round trip, clock, the engine's CPU), the skew
    cluster: dict[str, Any] = field(default_factory=dict)
    # --connections: the connections the clients shared (None: one per client), the calls in flight
    # at once (max, and mean sampled at each call's start) and each call's wait for a free connection
    # (ns) where calls queue for one (HTTP/1.1 pools, Thrift); absent in documents before 2026-11-26
    connections: int | None = None
    inflight_max: int | None = None
    inflight_mean: float | None = None
    conn_wait_histogram: str | None = None

    @cached_property
    def histogram(self) -> Any:
        return hist.decode(self.latency_histogram)

    @cached_property
    def latency(self) -> dict[str, float | int]:
        """p50/p90/p99/p99.9, mean, SD, CV in microseconds, from the histogram."""
        return hist.summary_us(self.histogram)

    @property
    def server_rss_bytes_per_connection(self) -> float | None:
        """The server's peak RSS over the connections it held: what an open connection costs, at most
        (the rest of the process included: compare cells of few and many connections for the slope)."""
        if not self.server_peak_rss_bytes or not self.server_connections:
            return None
        return self.server_peak_rss_bytes / self.server_connections

    @cached_property
    def conn_wait(self) -> dict[str, float | int]:
        """--connections over a pool: a call's wait for a free connection (p50/p99/..., µs); {} elsewhere."""
        return hist.summary_us(hist.decode(self.conn_wait_histogram)) if self.conn_wait_histogram else {}

    @cached_property
    def message_latency(self) -> dict[str, float | int]:
        """A stream cell's per-message latency (p50/p99/..., µs, from its histogram); {} for a unary cell."""
        return hist.summary_us(hist.decode(self.message_latency_histogram)) if self.message_latency_histogram else {}

    @property
    def messages_per_s(self) -> float | None:
        """A stream cell's messages per second of the measured phase; None for a unary cell."""
        return self.messages / self.wall_s if self.messages and self.wall_s > 0 else None

    @cached_property
    def trends(self) -> dict[str, trend.Fit]:
        """p50 and p99 (µs) and the server's resident bytes fitted across the intervals (record.trend),
        each at its interval's middle; a statistic of fewer than trend.MIN_INTERVALS points is left out."""
        if not self.intervals or not self.interval_s:
            return {}
        rows = intervals.rows(self.intervals, self.interval_s, self.wall_s, self.server_intervals)
        middles = [row["start_s"] + self.interval_s / 2 for row in rows]
        fitted = {key: trend.fit(middles, [row.get(key) for row in rows]) for key in TREND_KEYS}
        return {key: one for key, one in fitted.items() if one is not None}

    @property
    def trial_number(self) -> int:
        """The trial as the README and every report number it, from 1 (the document keeps `trial` from 0)."""
        return self.trial + 1

    @property
    def setting(self) -> str | None:
        """How the cell was measured, when not plain loopback with a connection per client: 'via haproxy,
        100mbit link', '1 connection' (--connections: cells that share connections are never pooled
        with those that do not)."""
        parts = ([f"via {self.via}"] if self.via else []) + ([f"{self.link} link"] if self.link else [])
        if self.connections is not None:
            parts.append(f"{self.connections} connection{'s' if self.connections != 1 else ''}")
        if self.cluster:
            server = self.cluster["server_node"] or "target"  # target --cluster: no server node
            parts.append(f"{server} <- {','.join(self.cluster['client_nodes'])}")
        return ", ".join(parts) or None

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def calls_sent(self) -> int:
        """Every call made in the measured phase: verified (`calls`, the latency samples) and failed."""
        return self.calls + self.error_count

    @property
    def timed_out(self) -> int:
        return self.errors.get("timeout", 0)

    @property
    def throughput_per_s(self) -> float:
        """Calls sent per second: a failed call loaded the server and the client as much as a verified one."""
        return self.calls_sent / self.wall_s if self.wall_s > 0 else 0.0

    def _per_call(self, total: float | None) -> float | None:
        """Per call sent (CPU and bytes went into failed calls too; dividing by verified ones inflates)."""
        if total is None or self.calls_sent == 0:
            return None
        return total / self.calls_sent

    @property
    def client_cpu_us_per_call(self) -> float | None:
        return self._per_call((self.client_cpu_user_s + self.client_cpu_sys_s) * 1e6)

    @property
    def server_cpu_us_per_call(self) -> float | None:
        """From the nanosecond total where it was read, else from the ticks."""
        if self.server_cpu_s is not None:
            return self._per_call(self.server_cpu_s * 1e6)
        if self.server_cpu_user_s is None or self.server_cpu_sys_s is None:
            return None
        return self._per_call((self.server_cpu_user_s + self.server_cpu_sys_s) * 1e6)

    @property
    def bytes_in_per_call(self) -> float | None:
        """IP bytes to the server per call: requests with every header, and the ACKs."""
        return self._per_call(self.wire_in_bytes)

    @property
    def bytes_out_per_call(self) -> float | None:
        return self._per_call(self.wire_out_bytes)

    @property
    def payload_bytes_per_call(self) -> float | None:
        """Transport payload both ways per call (IP bytes less each packet's IPv4 + TCP or UDP headers)."""
        if self.wire_in_bytes is None or self.wire_out_bytes is None:
            return None
        packets = (self.wire_in_packets or 0) + (self.wire_out_packets or 0)
        payload = self.wire_in_bytes + self.wire_out_bytes - wire.header_bytes(packets, self.wire_udp_packets or 0)
        return self._per_call(payload)

    def slowed(self, factor: float) -> Cell:
        """This cell as a uniform slowdown would have measured it: every latency (histograms and samples)
        multiplied by `factor`, everything else kept (benchmarks/significance.py injects one so)."""
        return replace(self, latency_histogram=hist.scaled(self.latency_histogram, factor),
                       latency_uncorrected_histogram=hist.scaled(self.latency_uncorrected_histogram, factor),
                       samples_ns=[[i, int(round(ns * factor))] for i, ns in self.samples_ns])

    def row(self) -> dict[str, Any]:
        """A flat record of this cell: identity, counts and every derived statistic."""
        out = {k: getattr(self, k) for k in ("contender", "client", "workload", "method", "clients",
                                              "trial", "status", "reason", "protocol", "language",
                                              "via", "link", "calls", "wall_s", "late_calls", "retries", "rate_per_s")}
        out["errors"] = self.error_count
        out["calls_sent"], out["calls_timed_out"] = self.calls_sent, self.timed_out
        out["throughput_per_s"] = self.throughput_per_s
        out.update({k: v for k, v in self.latency.items() if k != "count"})
        out["client_cpu_us_per_call"] = self.client_cpu_us_per_call
        out["server_cpu_us_per_call"] = self.server_cpu_us_per_call
        out["bytes_in_per_call"] = self.bytes_in_per_call
        out["bytes_out_per_call"] = self.bytes_out_per_call
        out["payload_bytes_per_call"] = self.payload_bytes_per_call
        out["server_peak_rss_bytes"] = self.server_peak_rss_bytes
        out["server_connections"], out["server_rss_bytes_per_connection"] = (self.server_connections,
                                                                              self.server_rss_bytes_per_connection)
        out["messages"], out["messages_per_s"] = self.messages, self.messages_per_s
        out["message_p50_us"] = self.message_latency.get("p50_us")
        out["message_p99_us"] = self.message_latency.get("p99_us")
        for key, name in TREND_KEYS.items():  # 0 when flat, empty when too few intervals to say
            one = self.trends.get(key)
            out[name] = None if one is None else one.per_min if one.real else 0.0
        out["connections"], out["inflight_max"], out["inflight_mean"] = (self.connections, self.inflight_max,
                                                                         self.inflight_mean)
        out["conn_wait_p50_us"], out["conn_wait_p99_us"] = self.conn_wait.get("p50_us"), self.conn_wait.get("p99_us")
        return out

    def to_json(self) -> dict[str, Any]:
        """The fields as they are, not copied: the document is saved after every cell, and
        `asdict`'s deep copy of every sample and interval made a suite's saves quadratic (a
        324-cell run spent minutes copying)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cell:
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


class SuiteNote(TypedDict, total=False):
    """`Results.suite`: what `rpcarena suite` ran (every key, in the documents it writes)."""

    name: str
    quick: bool
    missing: dict[str, str]  # each contender or workload that cannot run here: why


class ResumedNote(TypedDict):
    """An entry of `Results.resumed`: a `run --resume` of the document."""

    at: str
    cells_missing: int
    failed_before: list[str]  # "cell label: reason" of the cells measured again
    environment: dict[str, Any]


@dataclass(frozen=True)
class Results:
    """A whole run: environment, configuration and cells (a value: a run grows one through `ResultsWriter`)."""

    environment: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)
    created: str = field(default_factory=now)
    finished: str | None = None
    interrupted: str | None = None
    placement: dict[str, Any] | None = None  # the CPU placement policy and CPUs of the run
    link: dict[str, Any] | None = None  # the emulated link the servers were behind, as configured and measured
    wire_unavailable: str | None = None  # why bytes on the wire were not counted
    failures: list[str] = field(default_factory=list)  # "cell label: reason" of every failed cell
    # --find-max: the highest rate meeting the SLO, per plan
    find_max: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)  # rpcarena target: the external servers measured
    suite: SuiteNote | None = None  # rpcarena suite: its name, quick or not, the systems missing here
    resumed: list[ResumedNote] = field(default_factory=list)  # each run --resume
    cluster: dict[str, Any] | None = None  # --cluster: the scheduler, the engine's quiet, each node's environment
    path: Path | None = None
    save_id: str | None = None  # names this whole save: the journal beside the file continues it

    def notes(self) -> dict[str, Any]:
        """The run's notes that are set (placement, link, failures, ...), by name."""
        return {name: getattr(self, name) for name in NOTES if getattr(self, name) not in (None, [])}

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "created": self.created, "finished": self.finished,
                "interrupted": self.interrupted, "save_id": self.save_id, "environment": self.environment,
                "config": self.config,
                **{name: getattr(self, name) for name in NOTES}, "cells": [c.to_json() for c in self.cells]}

    def saved(self, path: str | os.PathLike[str] | None = None) -> Results:
        """Write the document whole, atomically and durably (a reader never sees half a file, a crash
        never loses a saved one, a failed write leaves the previous version), then remove the journal
        it now holds; the document as saved (its path, the id of this save) is returned. A run saves
        so at its ends; each cell between goes to the journal (`ResultsWriter.add`)."""
        target = Path(path or self.path or "results.json")
        saved = replace(self, path=target, save_id=secrets.token_hex(8))
        output.write(target, json.dumps(saved.to_json(), separators=(",", ":")).encode(), option="--out", force=True,
                     durable=True)
        journal.remove(target)
        return saved

    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """`saved`, for a caller that needs only where it went (this value keeps its path and save id)."""
        target = Path(path or self.path or "results.json")
        self.saved(target)
        return target

    def adding(self, cell: Cell, failure: str | None = None) -> Results:
        """This document with one more cell (and, for a failed one, "its label: why")."""
        return replace(self, cells=[*self.cells, cell], failures=self.failures + ([] if failure is None else [failure]))

    def rows(self) -> list[dict[str, Any]]:
        return [cell.row() for cell in self.cells]

    def to_pandas(self) -> Any:
        """The cells as a pandas DataFrame (pandas is an optional extra: pip install rpcarena[pandas])."""
        try:
            import pandas
        except ImportError:
            raise UsageError("pandas is not installed: pip install 'rpcarena[pandas]'") from None
        return pandas.DataFrame(self.rows())

    def interval_rows(self) -> list[dict[str, Any]]:
        """Each measured cell's intervals, a row each: the cell's identity, then the interval's start,
        calls, errors, calls/s and p50/p90/p99/max (µs), computed from its histogram, and where the server
        was read each interval, the bytes on the wire each way and the server's resident bytes."""
        return [{"contender": c.contender, "client": c.client, "workload": c.workload, "clients": c.clients,
                 "trial": c.trial, **({"rate_per_s": c.rate_per_s} if c.rate_per_s is not None else {}), **row}
                for c in self.ok_cells() if c.intervals and c.interval_s
                for row in intervals.rows(c.intervals, c.interval_s, c.wall_s, c.server_intervals)]

    def intervals_frame(self) -> Any:
        """The cells over time as a pandas DataFrame, one row per interval (see `interval_rows`)."""
        try:
            import pandas
        except ImportError:
            raise UsageError("pandas is not installed: pip install 'rpcarena[pandas]'") from None
        return pandas.DataFrame(self.interval_rows())

    def ok_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.status == "ok"]


class ResultsWriter:
    """A run's document as it grows, each cell on disk before `add` returns: one line appended to
    the journal beside the document last saved whole (saved first if none was). `results` is the
    document so far, a new value after each change."""

    def __init__(self, results: Results) -> None:
        self.results = results
        self._journal: journal.Journal | None = None

    def add(self, cell: Cell, failure: str | None = None) -> None:
        self.results = self.results.adding(cell, failure)
        if self.results.path is None or self.results.save_id is None:
            self.save()
            return
        if self._journal is None:
            self._journal = journal.Journal.start(self.results.path, self.results.save_id)
        self._journal.append({"cell": cell.to_json(), **({"failure": failure} if failure is not None else {})})

    def note(self, **changes: Any) -> None:
        """Set the run's notes or ends (`interrupted`, `finished`, `placement`, ...): kept at the next save."""
        self.results = replace(self.results, **changes)

    def save(self, path: str | os.PathLike[str] | None = None) -> Results:
        """The document whole (`Results.saved`), the journal it now holds closed and removed."""
        self.close_journal()
        self.results = self.results.saved(path)
        return self.results

    def close_journal(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def load(path: str | os.PathLike[str]) -> Results:
    """Read a results document of any readable version, with the cells its journal holds (a run
    that was killed); a malformed one is a one-line UsageError naming what is wrong, never a
    traceback later in a report."""
    target = inputs.path_of(os.fspath(path), "results file")
    try:
        data = json.loads(_read_bounded(target))
    except OSError as error:
        raise UsageError(f"cannot read {target} ({error.strerror or error}): check the path") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise UsageError(f"{target} is not a results document ({str(error)[:80]})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{target} is not an rpcarena results document")
    if data.get("version") not in READABLE_VERSIONS:
        raise UsageError(f"{target} has results version {data.get('version')}; this rpcarena reads "
                         f"{READABLE_VERSIONS}: upgrade rpcarena")
    try:
        return _journaled(_results(data, target))
    except Malformed as error:
        raise UsageError(f"{target} is damaged: {error}; measure it again or restore it") from None


def _read_bounded(target: Path) -> bytearray:
    """The file's bytes, refused unless it is a regular file (a FIFO would block), past
    MAX_DOCUMENT_BYTES before more is read, or at once when it does not begin as a JSON object does."""
    too_large = UsageError(f"{target} is larger than a results document may be ({MAX_DOCUMENT_BYTES // 2**20} "
                           "MiB): give the file rpcarena wrote")
    with inputs.open_regular(target, "results file") as source:
        if os.fstat(source.fileno()).st_size > MAX_DOCUMENT_BYTES:
            raise too_large
        data = bytearray(source.read(64))
        if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
            raise UsageError(f"{target} is not an rpcarena results document")
        while len(data) <= MAX_DOCUMENT_BYTES and (chunk := source.read(2**20)):
            data += chunk
    if len(data) > MAX_DOCUMENT_BYTES:
        raise too_large
    return data


def _journaled(results: Results) -> Results:
    """The document with the cells of the journal beside it that continues its last whole save."""
    assert results.path is not None
    found = journal.read(results.path, MAX_DOCUMENT_BYTES)
    if found is None or results.save_id is None or found.continues != results.save_id:
        return results  # none, or one left beside a later save (which holds its cells)
    cells = [_cell(len(results.cells) + i, record.get("cell")) for i, record in enumerate(found.records)]
    failures = [record["failure"] for record in found.records if isinstance(record.get("failure"), str)]
    return replace(results, cells=results.cells + cells, failures=results.failures + failures)


def is_document(path: str | os.PathLike[str]) -> bool:
    """Whether a file holds a results document, by its content whatever its name, key order or
    length: what no command writes over without --force. Only a regular file can be one."""
    return recognise.holds_results(path)


class Malformed(Exception):
    """What is wrong in a results document, said in a few words."""


_TOP = {"environment": "dict", "config": "dict", "cells": "list", "created": "str",
        "finished": "str | None", "interrupted": "str | None", "save_id": "str | None"}
_NOTE_TYPES = {"placement": "dict | None", "link": "dict | None", "wire_unavailable": "str | None",
               "failures": "list[str]", "find_max": "list[dict]", "targets": "list[dict]", "suite": "dict | None",
               "resumed": "list[dict]"}
# a field typed by a TypedDict is checked as the JSON object it is
_RECORDS = re.compile(r"\b(IntervalEntry|ServerIntervalEntry)\b")
_CELL_TYPES = {f.name: _RECORDS.sub("dict", str(f.type)) for f in fields(Cell)}
_REQUIRED = [f.name for f in fields(Cell) if f.default is MISSING and f.default_factory is MISSING]


def _results(data: dict[str, Any], target: Path) -> Results:
    notes = data.get("extra", {}) if data["version"] == 1 else data
    _check("the document", {k: v for k, v in data.items() if k in _TOP}, _TOP)
    if not isinstance(notes, dict):
        raise Malformed("extra is not an object")
    _check("its notes", {k: v for k, v in notes.items() if k in _NOTE_TYPES}, _NOTE_TYPES)
    cells = [_cell(i, c) for i, c in enumerate(data.get("cells", []))]
    return Results(environment=data.get("environment", {}), config=data.get("config", {}), cells=cells,
                   created=data.get("created", ""), finished=data.get("finished"), interrupted=data.get("interrupted"),
                   path=target, save_id=data.get("save_id"),
                   **{name: notes[name] for name in NOTES if notes.get(name) is not None})


def _cell(index: int, data: object) -> Cell:
    where = f"cell {index}"
    if not isinstance(data, dict):
        raise Malformed(f"{where} is not an object")
    missing = [name for name in _REQUIRED if name not in data]
    if missing:
        raise Malformed(f"{where} has no {', '.join(missing)}")
    _check(where, {k: v for k, v in data.items() if k in _CELL_TYPES}, _CELL_TYPES)
    if any(len(pair) != 2 for pair in data.get("samples_ns", [])):
        raise Malformed(f"{where}: samples_ns holds [call index, latency ns] pairs")
    cell = Cell.from_json(data)
    _decodes(where, lambda: cell.histogram)  # the cached property: decoded once, here
    _decodes(where, lambda: hist.decode(cell.latency_uncorrected_histogram))
    _decodes(where, lambda: hist.decode(cell.schedule_lag_histogram))
    return cell


def _decodes(where: str, decode: Callable[[], object]) -> None:
    try:
        decode()
    except hist.TooLarge as error:
        raise Malformed(f"{where}: {error}") from None
    except Exception:  # hdrh's decoder fails on damage in many ways (base64, zlib, struct): all mean damaged
        raise Malformed(f"{where}: a latency histogram does not decode") from None


def _check(where: str, values: dict[str, Any], types: dict[str, str]) -> None:
    for name, value in values.items():
        if not _fits(value, types[name]):
            raise Malformed(f"{where}: {name} is {json.dumps(value)[:40]}, not {_WORDS.get(types[name], types[name])}")


_WORDS = {"int": "a whole number", "float": "a number", "str": "text", "dict": "an object", "list": "a list"}
_SIMPLE: dict[str, Any] = {"str": str, "bool": bool, "dict": dict, "list": list}


def _fits(value: object, kind: str) -> bool:
    """Whether a JSON value has the type a field declares ('int', 'float | None', 'dict[str, int]', ...)."""
    if " | " in kind:
        return any(_fits(value, part) for part in kind.split(" | "))
    if kind == "None":
        return value is None
    if kind == "Any":
        return True
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    base, _, inner = kind.partition("[")
    if not isinstance(value, _SIMPLE[base]):
        return False
    if base == "list" and inner:
        return all(_fits(item, inner[:-1]) for item in value)
    if base == "dict" and inner:
        return all(_fits(item, inner[:-1].split(", ", 1)[1]) for item in value.values())
    return True
