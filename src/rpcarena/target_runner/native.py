"""Native drivers of `rpcarena target` (`--client go`, `rust`): the same rendered requests and checks, a worker's speed.

A worker offers a target driver with a client-only manifest entry of protocol
`target` (the Go worker's `target-go`, the Rust worker's `target-rust` for plain
HTTP/1.1); users pick it by the worker's language.
The driver gets the target's description in the spec's `external` key, the
requests rendered before measuring and each request's checks as `responses`, and
checks every reply itself. Python stays the default client: it is what a Python
caller of the service feels, and it alone speaks RPyC.
"""

from __future__ import annotations

import math
import subprocess
from typing import Any
from urllib.parse import urlsplit

from rpcarena.config import RunConfig
from rpcarena.contract import ContractError, DriveResult, DriveSpec, ManifestEntry
from rpcarena.errors import ServerError, UnavailableError, UsageError
from rpcarena.orchestration.phase import DriverSpec
from rpcarena.orchestration.plan import Plan, Skip
from rpcarena.process.builds import Worker, workers
from rpcarena.targets import checks
from rpcarena.targets.target import Target, first_call_failed, reachable
from rpcarena.targets.target import probe as python_probe

PROTOCOL = "target"
PYTHON = "py"
RUST = "rust"
PROBE_GRACE_S = 30.0  # the probe's own start-up, beyond the call's timeout


def client_ids() -> list[str]:
    """What `--client` takes: py, and the language of every worker with a target driver."""
    return [PYTHON] + [language for language, worker in sorted(workers().items()) if _entry(worker)]


def check_client(client: str) -> str:
    """`--client` as given, or a one-line error naming the choices."""
    if client not in client_ids():
        raise UsageError(f"bad --client {client!r} for targets: use one of {', '.join(client_ids())}")
    return client


def _entry(worker: Worker) -> ManifestEntry | None:
    return next(iter(worker.client_entries(PROTOCOL).values()), None)


def cannot(target: Target, client: str) -> Skip | None:
    """Why `client` cannot call this target (what only the other kind of client speaks)."""
    needs = _native_only(target)
    if client == PYTHON:
        return ("unsupported", f"the Python client cannot call {needs}: use --client go") if needs else None
    if target.protocol not in ("grpc", "http"):
        return "unsupported", f"no native client calls {target.protocol} targets: use --client py"
    beyond = _beyond_rust(target) if client == RUST else None
    if beyond:
        return "unsupported", f"the rust client calls plain HTTP/1.1 only, not {beyond}: use --client go"
    return None


def _native_only(target: Target) -> str | None:
    if target.description.get("streams"):
        return f"a {target.description['streams']} stream"
    return None


def _beyond_rust(target: Target) -> str | None:
    """What the Rust driver (HTTP/1.1 over plain TCP to one host, the basic checks) leaves to the Go one."""
    if target.protocol != "http":
        return f"{target.protocol} targets"
    if target.description.get("http2"):
        return "--http2"
    if any(not str(request.get("url", "")).startswith("http://") for request in target.requests):
        return "https:// (TLS)"
    if len({urlsplit(str(request.get("url", ""))).netloc for request in target.requests}) > 1:
        return "requests to more than one host"
    if any(checks.any_order(response or []) for response in target.checks):
        return "--expect-json PATH~=[...] (a list in any order)"
    return None


def driver_specs(target: Target, p: Plan, config: RunConfig) -> list[DriverSpec]:
    """One native driver process with every client of the cell."""
    return [DriverSpec(driver_argv(p.client), drive_spec(target, p, config))]


def drive_spec(target: Target, p: Plan, config: RunConfig) -> DriveSpec:
    """What the native driver of `p.client` is asked (its manifest read, nothing built: on a
    cluster, each node builds its own driver)."""
    worker, entry = _worker(p.client)
    return DriveSpec.for_cell(config, contender=entry.id, target=target.address, method=target.method,
                              requests=target.requests, responses=target.checks, clients=p.clients,
                              external=external(target, config), sync=bool(worker.manifest.get("drive_sync")))


def driver_argv(client: str) -> list[str]:
    """The command of `client`'s target driver here, built when it is not yet."""
    return _worker(client)[0].argv("drive")


def external(target: Target, config: RunConfig) -> dict[str, Any]:
    """The target's description as every driver of it gets it (Python or native), with the exact
    per-call deadline: the contract's whole `timeout_ms` is too coarse below 1 ms (--timeout 500us),
    so the drivers of a target read `timeout_us` and fall back to `timeout_ms` only without it."""
    return dict(target.description, timeout_us=round(config.timeout_ms * 1000))


def _worker(client: str) -> tuple[Worker, ManifestEntry]:
    worker = workers().get(client)
    entry = _entry(worker) if worker else None
    if worker is None or entry is None:
        raise UsageError(f"no native target driver {client!r}: use one of {', '.join(client_ids())}")
    return worker, entry


def probe_by(target: Target, client: str, timeout_s: float, max_error_rate: float = 0.0) -> None:
    """One checked call before measuring, by `client` (the Python client or a native driver), when
    it can call the target at all (when it cannot, its cells say why)."""
    if cannot(target, client):
        return
    if client == PYTHON:
        python_probe(target, timeout_s, max_error_rate)
    else:
        probe(target, client, math.ceil(timeout_s * 1000), max_error_rate)


def probe(target: Target, client: str, timeout_ms: int, max_error_rate: float = 0.0) -> None:
    """Before measuring: one call by the native driver answers and passes its checks, judged as
    the Python client's first call is (`target.first_call_failed`)."""
    reachable(target)
    worker, entry = _worker(client)
    spec = DriveSpec.for_probe(contender=entry.id, target=target.address, method=target.method,
                               requests=target.requests[:1], responses=target.checks[:1], timeout_ms=timeout_ms,
                               external=target.description)
    try:
        done = subprocess.run(worker.argv("drive"), input=spec.to_line(), capture_output=True, text=True,
                              timeout=timeout_ms / 1000 + PROBE_GRACE_S, check=False)
    except subprocess.TimeoutExpired:
        raise ServerError(f"target {target.id}: the {client} driver's first call did not end: "
                          "start its server or fix the target") from None
    if done.returncode != 0:
        raise UnavailableError(f"target {target.id}: the {client} driver refused the target "
                               f"({_line(done.stderr)}): fix the target or use --client py")
    _first_answer(target, _result(done.stdout, client), max_error_rate)


def _result(stdout: str, client: str) -> DriveResult:
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        return DriveResult.from_line(lines[-1] if lines else "")
    except ContractError as error:
        raise UnavailableError(f"the {client} target driver answered badly ({error})") from None


def _first_answer(target: Target, result: DriveResult, max_error_rate: float) -> None:
    if result.calls == 1:
        return
    kind, _ = max(result.error_counts.items(), key=lambda item: item[1], default=("other", 0))
    said = _line(result.error_examples.get(kind, "")).removeprefix(f"{kind}: ")
    first_call_failed(target, kind, said[:160], max_error_rate)


def _line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
