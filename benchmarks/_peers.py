"""Peer load generators (ghz, wrk): installed when missing, run pinned, their output parsed.

Each run returns a `Measurement` in the same units as rpcarena's own driver
(calls per second of verified-or-2xx calls, latency percentiles in µs), so the
benchmark can put the two side by side without asking which tool measured.

Units, because the tools differ:
- ghz `-O json`: `total` and every `latencyDistribution[].latency` are Go
  `time.Duration`s, i.e. integer **nanoseconds**; percentiles cover OK calls only.
  Its `rps` counts failed calls too, so calls/s here is OK calls / total.
  With `-z`, the calls in flight at the cut-off end as `Unavailable` (at most one
  per worker): counted as `cutoff`, not as errors.
- wrk: a Lua `done()` hook writes one JSON line; `summary.duration` and
  `latency:percentile()` are **microseconds**; non-2xx/3xx replies are
  `summary.errors.status` and are subtracted from the calls.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from rpcarena.process.placement import preexec

GHZ_VERSION = "v0.120.0"
GHZ_MODULE = "github.com/bojand/ghz/cmd/ghz"
TOOLS_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rpcarena" / "tools"
REPO = Path(__file__).resolve().parents[1]
WRK_MARK = "PEER_JSON "
WRK_LUA = """\
wrk.method = "POST"
wrk.body = '%(body)s'
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('%(mark)s{"requests": %%d, "duration_us": %%d, "p50_us": %%.1f, "p99_us": %%.1f, '
    .. '"errors": {"connect": %%d, "read": %%d, "write": %%d, "status": %%d, "timeout": %%d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
"""


class PeerError(RuntimeError):
    """A peer tool that cannot be installed or whose run failed; the message says what to do."""


@dataclass(frozen=True)
class Measurement:
    """One measured run of one load generator against one fresh server."""

    tool: str
    calls: int
    calls_per_s: float
    p50_us: float
    p99_us: float
    errors: dict = field(default_factory=dict)
    cpu_us_per_call: float | None = None  # the load generator's own CPU (user + sys) per call
    server_cpu_us_per_call: float | None = None  # the server's CPU per call in the measured phase
    elapsed_s: float | None = None  # the whole measurement: server start, warm-up, run, stop


def ghz_path() -> Path:
    """ghz, pinned to GHZ_VERSION (`@latest` resolves to an old release here), built once."""
    path = TOOLS_DIR / "ghz"
    if path.exists() and GHZ_VERSION in _module_version(path):
        return path
    if shutil.which("go") is None:
        raise PeerError("go not found on PATH: install Go to build ghz, or put ghz in " + str(TOOLS_DIR))
    TOOLS_DIR.mkdir(parents=True, exist_ok=True)
    print(f"installing ghz {GHZ_VERSION} into {TOOLS_DIR} (about 90 s on a cold module cache)")
    done = subprocess.run(["go", "install", f"{GHZ_MODULE}@{GHZ_VERSION}"], cwd=tempfile.gettempdir(),
                          env=dict(os.environ, GOBIN=str(TOOLS_DIR)), capture_output=True, text=True)
    if done.returncode != 0:
        raise PeerError(f"go install {GHZ_MODULE}@{GHZ_VERSION} failed: {done.stderr.strip()[-500:]}")
    return path


def _module_version(path: Path) -> str:
    """The module line Go embeds in a binary (`ghz --version` says "dev" after go install)."""
    if shutil.which("go") is None:
        return GHZ_VERSION  # cannot check without Go: trust the cached binary
    done = subprocess.run(["go", "version", "-m", str(path)], capture_output=True, text=True)
    return next((line for line in done.stdout.splitlines() if line.split()[:1] == ["mod"]), "")


def ensure_system_tools(tools: tuple[str, ...] = ("wrk", "h2load")) -> None:
    """wrk and h2load (nghttp2-client) from Debian, through the repo's installer, when missing."""
    if all(shutil.which(t) for t in tools):
        return
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-system.sh")])
    missing = [t for t in tools if not shutil.which(t)]
    if done.returncode != 0 or missing:
        raise PeerError(f"{', '.join(missing)} missing: run scripts/install-system.sh as root")


def _run(argv: list[str], cpus: tuple[int, ...] | None, timeout_s: float) -> tuple[str, float]:
    """Run a peer pinned to the client CPUs (as taskset would), in its own group, dying with us.

    Returns its stdout and the CPU seconds it used (start-up included: a few ms)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, preexec_fn=preexec(cpus))
    except subprocess.TimeoutExpired:
        raise PeerError(f"{argv[0]} did not finish within {timeout_s:.0f} s") from None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise PeerError(f"{Path(argv[0]).name} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _ghz_argv(target: str, method: str, request: dict, connections: int, *run: str,
              shared: int | None = None) -> list[str]:
    return [str(ghz_path()), "--insecure", "--proto", str(REPO / "proto" / "arena.proto"),
            "--import-paths", str(REPO / "proto"), "--call", f"arena.Arena.{method}",
            "-d", json.dumps(request), "-c", str(connections), "--connections", str(shared or connections),
            *run, "-O", "json", target]


def ghz(target: str, method: str, request: dict, connections: int, duration_s: float,
        cpus: tuple[int, ...] | None, fixed_cpu_s: float = 0.0, shared: int | None = None) -> Measurement:
    """Closed-loop unary calls: N workers, each on its own connection (or all on `shared` connections:
    ghz's --concurrency N --connections M), for a duration.

    `fixed_cpu_s` (ghz_fixed_cpu_s) is taken off the CPU it used, so CPU per call is per call."""
    argv = _ghz_argv(target, method, request, connections, "-z", f"{duration_s}s", shared=shared)
    stdout, cpu_s = _run(argv, cpus, duration_s + 60)
    return with_cpu(parse_ghz(json.loads(stdout), connections), max(0.0, cpu_s - fixed_cpu_s))


def ghz_rate(target: str, method: str, request: dict, connections: int, rate_per_s: float, duration_s: float,
             cpus: tuple[int, ...] | None) -> Measurement:
    """Open-loop unary calls: `--rps` calls per second over N connections, for a duration."""
    argv = _ghz_argv(target, method, request, connections, "--rps", str(round(rate_per_s)), "-z", f"{duration_s}s")
    stdout, cpu_s = _run(argv, cpus, duration_s + 60)
    return with_cpu(parse_ghz(json.loads(stdout), connections), cpu_s)


def ghz_fixed_cpu_s(target: str, method: str, request: dict, cpus: tuple[int, ...] | None) -> float:
    """ghz's CPU for one call: its start-up (parsing arena.proto costs ~0.25 s here), the median of 3."""
    argv = _ghz_argv(target, method, request, 1, "-n", "1")
    return sorted(_run(argv, cpus, 60)[1] for _ in range(3))[1]


def with_cpu(m: Measurement, cpu_s: float) -> Measurement:
    return replace(m, cpu_us_per_call=cpu_s / m.calls * 1e6 if m.calls else None)


def parse_ghz(report: dict, connections: int) -> Measurement:
    codes = dict(report.get("statusCodeDistribution") or {})
    ok = codes.pop("OK", 0)
    errors = {k.lower(): n for k, n in codes.items() if n}
    cutoff = min(errors.get("unavailable", 0), connections)  # in flight when -z ran out
    if cutoff:
        errors["unavailable"] -= cutoff
        errors = {k: n for k, n in errors.items() if n}
    pct = {d["percentage"]: d["latency"] for d in report.get("latencyDistribution") or [] if d}
    total_s = report["total"] / 1e9
    return Measurement("ghz", ok, ok / total_s, pct.get(50, 0) / 1e3, pct.get(99, 0) / 1e3,
                       dict(errors, cutoff=cutoff) if cutoff else errors)


def wrk(url: str, body: dict, connections: int, duration_s: float, cpus: tuple[int, ...] | None) -> Measurement:
    """Keep-alive HTTP/1.1 POSTs: N connections over min(N, 2) threads, for a duration."""
    if duration_s != int(duration_s) or duration_s < 1:
        raise PeerError(f"wrk runs for whole seconds only, not {duration_s} s")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_LUA % {"body": json.dumps(body), "mark": WRK_MARK})
    try:
        argv = ["wrk", "-c", str(connections), "-t", str(min(connections, 2)), "-d", f"{int(duration_s)}s",
                "--latency", "--timeout", "5s", "-s", script.name, url]
        stdout, cpu_s = _run(argv, cpus, duration_s + 60)
        return with_cpu(parse_wrk(stdout), cpu_s)
    finally:
        os.unlink(script.name)


def parse_wrk(stdout: str) -> Measurement:
    lines = [line for line in stdout.splitlines() if line.startswith(WRK_MARK)]
    if not lines:
        raise PeerError(f"wrk printed no summary line: {stdout[-300:]}")
    s = json.loads(lines[-1][len(WRK_MARK):])
    ok = s["requests"] - s["errors"]["status"]
    errors = {k: n for k, n in s["errors"].items() if n}
    return Measurement("wrk", ok, ok / (s["duration_us"] / 1e6), s["p50_us"], s["p99_us"], errors)
