"""Where each mechanism's time goes, for a run of the user's own schema (`run --proto`).

A call of a mechanism is read as three parts, each from something the run measured:
- the handler: the CPU work and the wait the user asked for (`--server-work`, `--server-wait`),
  which every mechanism spends alike;
- the transport: the floor, the same request bytes echoed over TCP by a client of the same language
  (`analysis.floor`), the least a call of that size costs on that path;
- the mechanism's own: the rest of the p50 (encoding and decoding, framing, dispatch, the
  protocol's headers and round trips), which is what choosing a mechanism changes.
On the server's side likewise: its CPU per call less the handler's work is what the mechanism
spent serving a call. Bytes per call on the wire say what its encoding and framing cost in size.

The parts are medians and means of different cells, so the mechanism's share is an estimate: a
small negative one says "within the noise of its floor", and is shown as such, never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rpcarena.contract import FLOOR_PROTOCOL
from rpcarena.report.answer import Entry, Ranking
from rpcarena.results import Results
from rpcarena.userschema.workload import PREFIX

TITLE = "where the time goes"
HEADERS = ("contender", "p50", "handler", "transport (floor)", "mechanism's own", "server CPU/call",
           "mechanism's server CPU", "client CPU/call", "bytes/call")
NOTE = ("handler = the work and wait asked (--server-work, --server-wait); transport = the floor, the same request "
        "bytes echoed over TCP by a client of the same language; mechanism's own = p50 - handler - transport "
        "(encoding, framing, dispatch, the protocol's headers and round trips); mechanism's server CPU = server "
        "CPU per call less the handler's work; bytes/call = TCP payload both ways")
NOISE = "≈0"
NO_FLOOR = ("transport \"-\": no floor of the client's language in this run, so the call is not split: add its tcp-raw "
            "(tcp-raw, tcp-raw-go, tcp-raw-rust, tcp-raw-java) to --contender")


@dataclass(frozen=True)
class Part:
    """One mechanism's call, in parts (µs; None where the run has no figure for it)."""

    name: str
    p50_us: float
    handler_us: float
    floor_us: float | None
    own_us: float | None
    server_cpu_us: float | None
    server_own_cpu_us: float | None
    client_cpu_us: float | None
    bytes_per_call: float | None

    def to_json(self) -> dict[str, Any]:
        return {"contender": self.name, "p50_us": self.p50_us, "handler_us": self.handler_us,
                "transport_us": self.floor_us, "mechanism_us": self.own_us, "server_cpu_us": self.server_cpu_us,
                "server_mechanism_cpu_us": self.server_own_cpu_us, "client_cpu_us": self.client_cpu_us,
                "bytes_per_call": self.bytes_per_call}


@dataclass(frozen=True)
class TimeGoes:
    """One ranking of a user's workload, its mechanisms in parts, in the ranking's order."""

    title: str
    workload: str  # what the schema and samples were, as the run described them
    parts: list[Part]

    floor_missing: str | None = None  # why the run's floor was not measured (a one-way stream has none)

    @property
    def notes(self) -> list[str]:
        """What its marks mean, why a part lacks its floor only when one does."""
        if not any(p.floor_us is None for p in self.parts):
            return [NOTE]
        said = f'transport "-": the floor was not measured: {self.floor_missing}' if self.floor_missing else NO_FLOOR
        return [NOTE, said]

    def to_json(self) -> dict[str, Any]:
        return {"ranking": self.title, "workload": self.workload, "parts": [p.to_json() for p in self.parts]}


def of(rankings: list[Ranking], results: Results) -> list[TimeGoes]:
    """The breakdown of every ranking of the user's workload in the results (none for the seeds')."""
    asked = results.config.get("user_schema")
    if not asked:
        return []
    work = float(asked.get("server_work_us") or 0.0)
    handler = work + float(asked.get("server_wait_us") or 0.0)
    return [TimeGoes(r.title(), _described(asked), [_part(e, handler, work) for e in measured],
                     _floor_missing(results, r.workload))
            for r in rankings if shown_for(results, r.workload) and not r.apart
            and (measured := [e for e in r.entries if e.failed is None])]


def shown_for(results: Results, workload: str) -> bool:
    """Whether a workload of the results is the user's own, split in parts (the seeds' are not):
    cheap, so a report asks it before it ranks anything."""
    return bool(results.config.get("user_schema")) and workload.startswith(f"{PREFIX}.")


def _floor_missing(results: Results, workload: str) -> str | None:
    """Why the floor was not measured for the workload, as its cell says (unsupported, unavailable)."""
    return next((c.reason for c in results.cells if c.workload == workload and c.protocol == FLOOR_PROTOCOL
                 and c.status != "ok" and c.reason), None)


def _described(asked: dict[str, Any]) -> str:
    source = asked.get("data_file") or ("--data" if asked.get("data") else f"--fill {asked.get('fill')}")
    return f"{asked.get('method')} of {asked.get('proto')}, requests from {source}, reply {asked.get('reply')}"


def _part(entry: Entry, handler_us: float, work_us: float) -> Part:
    g = entry.group
    floor_us = entry.floor_us
    own = entry.p50_us - handler_us - floor_us if floor_us is not None else None
    counted = all(not c.server_counters_include_warmup for c in g.cells)
    server = g.server_cpu_us_per_call if counted else None
    return Part(entry.name, entry.p50_us, round(handler_us, 3), floor_us, own, server,
                server - work_us if server is not None else None, g.client_cpu_us_per_call, g.payload_bytes_per_call)


def own_text(us: float | None, duration: Any) -> str:
    """The mechanism's share: a duration, NOISE when the noise made it negative, '-' without a floor."""
    if us is None:
        return "-"
    return NOISE if us <= 0 else duration(us)


def cells(part: Part, duration: Any) -> list[str]:
    """One part as the terminal and markdown tables show it (`duration` formats microseconds)."""
    return [part.name, duration(part.p50_us), duration(part.handler_us) if part.handler_us else "0",
            "-" if part.floor_us is None else duration(part.floor_us), own_text(part.own_us, duration),
            "-" if part.server_cpu_us is None else duration(part.server_cpu_us),
            own_text(part.server_own_cpu_us, duration),
            "-" if part.client_cpu_us is None else duration(part.client_cpu_us),
            "-" if part.bytes_per_call is None else f"{part.bytes_per_call:,.0f} B"]
