"""The parts of a report that say what was measured on: machine, software, configuration,
and every cell that was not measured, with its reason."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rpcarena.report import html

ENVIRONMENT_KEYS = ("hostname", "cpu_model", "cpus", "cpus_allowed", "cpu_mhz", "memory_bytes", "kernel", "os",
                    "python", "loadavg", "rpcarena", "git_revision", "packages")


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in value)
    return str(value)


def _pairs(data: Mapping[str, object], keys: Sequence[str] | None = None) -> str:
    chosen = [k for k in (keys or data) if k in data]
    chosen += [k for k in data if k not in chosen and keys is not None]
    return html.table(("key", "value"), [(k, _value(data[k])) for k in chosen], left=2)


def context_section(sources: Sequence[Any]) -> str:
    body = ""
    for source in sources:
        doc = source.results
        head = f"{source.name}: {doc.path}" if doc.path else source.name
        run = {"created": doc.created, "finished": doc.finished, "interrupted": doc.interrupted}
        body += html.section(f"environment ({head})", _pairs(doc.environment, ENVIRONMENT_KEYS), level=3)
        body += html.section("configuration", _pairs({**run, **doc.config}), level=3)
        notes = {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in doc.notes().items()
                 if k != "suite"}
        if notes:
            body += html.section("run notes", _pairs(notes), level=3)
    return html.section("environment and configuration", body, anchor="environment")


def not_measured(sources: Sequence[Any], workload: str | None, exclude: set[str] | None = None) -> str:
    """The cells of a workload (or of every workload not in `exclude`) with no measurement."""
    rows = []
    for source in sources:
        for c in source.results.cells:
            wanted = c.workload == workload if workload else c.workload not in (exclude or set())
            if wanted and (c.status != "ok" or not c.calls):
                rows.append((c.contender, c.client, c.workload, c.clients, c.trial + 1, c.status, c.reason or ""))
    if not rows:
        return ""
    title = "not measured" if workload else "workloads with nothing measured"
    return html.section(title, html.table(("contender", "client", "workload", "clients", "trial", "status",
                                           "reason"), rows, left=3), level=3)
