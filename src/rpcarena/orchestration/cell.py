"""The stored cell of a plan: the one place a cell's fields are written, so every runner's cells read alike.

A runner's `Measurement` becomes a `Cell` only here, and only through `error_gate` (failed calls
past `--max-error-rate`, or no call completed, fail the cell), so no runner or caller can store
an ungated measurement.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rpcarena.config import RunConfig
from rpcarena.orchestration import error_gate
from rpcarena.orchestration.measurement import Measurement
from rpcarena.orchestration.plan import Plan
from rpcarena.results import Cell


def cell_of(p: Plan, config: RunConfig, started: str, m: Measurement | None = None, *, status: str = "ok",
            reason: str | None = None) -> Cell:
    """The stored cell of a plan and what its runner measured (or why it measured nothing): the one
    place a cell's fields are written, so every runner's cells read alike."""
    cell = Cell(contender=p.subject.id, client=p.client, workload=p.workload.id, method=p.workload.method,
                clients=p.clients, trial=p.trial, protocol=p.subject.protocol, language=p.subject.language,
                client_language=p.client_language, rate_per_s=config.rate_per_s,
                link=config.link, via=config.via, stages=[dict(s) for s in config.rate_stages or []],
                interval_s=config.interval_s, connections=config.connections,
                started=started, status=status, reason=reason)
    if m is None:
        return cell
    m = error_gate.gated(m, config.max_error_rate)
    return replace(cell, **_figures(m), stages=_staged(cell.stages, m.clients.stages or []))


_STAGE_KEYS = {"histogram": "latency_histogram", "histogram_uncorrected": "latency_uncorrected_histogram",
               "histogram_schedule_lag": "schedule_lag_histogram", "calls": "calls"}


def _staged(stages: list[dict[str, Any]], measured: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each --rate stage's figures beside its rate and duration, under the cell's key names."""
    return [dict(stage, **{_STAGE_KEYS[k]: v for k, v in figures.items() if k in _STAGE_KEYS})
            for stage, figures in zip(stages, measured)] + stages[len(measured):]


def _figures(m: Measurement) -> dict[str, Any]:
    """A measurement's fields of the stored cell, by their names in the results document."""
    result, server, wired = m.clients, m.server, m.server.wire
    return dict(
        status="failed" if m.failed else "ok", reason=m.failed or m.note, **({"via": m.via} if m.via else {}),
        calls=result.calls, errors=result.error_counts, error_examples=dict(result.error_examples),
        wall_s=result.wall_s, latency_histogram=result.histogram,
        latency_uncorrected_histogram=result.histogram_uncorrected,
        schedule_lag_histogram=result.histogram_schedule_lag, messages=result.messages,
        message_latency_histogram=result.histogram_messages, samples_ns=result.samples,
        intervals=result.intervals or [],
        late_calls=result.late_calls, retries=result.retries, client_cpu_user_s=result.cpu_user_s,
        client_cpu_sys_s=result.cpu_sys_s, client_processes=m.processes, client_tool=dict(result.tool),
        server_counters_include_warmup=server.counters_include_warmup, server_cpu_user_s=server.usage.cpu_user_s,
        server_cpu_sys_s=server.usage.cpu_sys_s, server_cpu_s=server.usage.cpu_s,
        server_peak_rss_bytes=server.peak_rss_bytes, server_intervals=list(server.intervals),
        server_connections=server.connections,
        **({} if wired is None else {"wire_in_bytes": wired.in_bytes, "wire_in_packets": wired.in_packets,
                                      "wire_out_bytes": wired.out_bytes, "wire_out_packets": wired.out_packets,
                                      "wire_udp_packets": wired.udp_packets}),
        warmup_s=m.warmup_s, link_rtt_ms=m.link_rtt_ms, link_cpu_s=m.link_cpu_s, tcp_nodelay=dict(m.tcp_nodelay),
        placement=dict(m.placement), drift=dict(m.drift), contention=dict(m.contention), cluster=dict(m.nodes),
        connections=result.connections, inflight_max=result.inflight_max, inflight_mean=result.inflight_mean,
        conn_wait_histogram=result.histogram_conn_wait)
