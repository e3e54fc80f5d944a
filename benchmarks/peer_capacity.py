"""Can rpcarena's native drivers load a server as hard, and time it as truly, as ghz and wrk?

The same server (one fresh, pinned process per measurement, placed as the arena
places it: `split`) is driven in one run by a peer load generator and by
rpcarena's native driver of the server's language, alternately, at 1, 32 and 64
connections, for the same duration after the same warm-up, both load
generators pinned to the arena's client CPUs:

- grpc-go, grpc-tonic: ghz (pinned v0.120.0) vs the Go / Rust gRPC driver,
  unary arena.Arena/SayHello, one connection per client;
- grpc-go, grpc-tonic, also 50 calls in flight over 1 connection (`--multiplexed 50/1`): ghz
  `--concurrency 50 --connections 1` vs the driver's 50 clients with `connections` 1 (one
  channel, calls multiplexed on it), as ghz runs by default;
- rest-warp: wrk (POST /arena/SayHello, JSON) vs rpcarena's Rust HTTP/1.1 load
  client `rust-h1`, one keep-alive connection per client. The hyper client
  (`--client rust`) is measured in the same run and printed below it, for
  reference: it tells what a Rust service's own HTTP client costs per call, and
  the goals judge the load client only. (h2load is installed for h2c servers;
  warp here speaks HTTP/1.1 only, so wrk is its peer.)

With --drivers target the rpcarena side is `rpcarena target` instead: the same server taken as
a server rpcarena did not start (an address, arena.proto for gRPC, a URL and a JSON body for
HTTP, every reply checked against --expect-json), driven by the Rust target driver
(`--client rust`, HTTP/1.1) against wrk and the Go one (`--client go`) against ghz; the Go
driver is measured against wrk too, for reference.

The peer is warmed by an unmeasured run of --warmup seconds against the same
server; the native driver warms up by the worker contract. It prints calls/s,
p50 and p99 side by side with ratios (rpcarena / peer, the median of the
per-round ratios), whether the goals hold
(calls/s >= the peer's at every level; p50 at 1 connection no more than 10 %
above the peer's), and the load average before and after (the machine is shared).
Goals are judged on paired ratios, one per round (each round runs the peer and
rpcarena back to back), with a tolerance band of TIE_BAND (5 %) either side of the
goal: met when their median meets the goal, a tie within noise when it lies inside
the band (or the rounds straddle the goal), NOT met only when every round misses the
goal by more than the band. Beside each verdict it says when the server was CPU-bound
(BOUND of its one CPU busy: both load generators hit the same ceiling, so a tie is all
that can be shown) or the peer was (BOUND of the load generators' CPUs).

Calls/s on a shared 2-vCPU machine swing 2x run to run, so it also prints what
noise barely moves: the CPU each load generator spends per call (its getrusage;
ghz's ~0.25 s start-up, parsing arena.proto, is measured and taken off) and the
server's CPU per call in the measured phase (the same server work either way
means the difference is in the driver or in waiting, not in what was asked), and how
busy the server's CPU was: near 100 % the server is the ceiling, and calls/s of two
load generators that both reach it differ by noise only.

    .venv/bin/python benchmarks/peer_capacity.py [--duration 5] [--warmup 1] [--rounds 5]
        [--connections 1,32,64] [--multiplexed 50/1] [--servers grpc-go,grpc-tonic,rest-warp] [--rust-threads N]
        [--drivers native|target]
        [--out results/peer_capacity.json]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers import Measurement, PeerError, ensure_system_tools, ghz, ghz_fixed_cpu_s, ghz_path, wrk  # noqa: E402
from rpcarena import contenders, environment, seeds  # noqa: E402
from rpcarena.config import RunConfig, parse_ints, parse_names  # noqa: E402
from rpcarena.contenders import native  # noqa: E402
from rpcarena.errors import ArenaError  # noqa: E402
from rpcarena.orchestration import phase  # noqa: E402
from rpcarena.orchestration.contender_cells import CONTENDER_CELLS, driver_specs  # noqa: E402
from rpcarena.orchestration.plan import Plan  # noqa: E402
from rpcarena.process.placement import Placement, plan  # noqa: E402
from rpcarena.process.server_process import ServerProcess  # noqa: E402
from rpcarena.record import hist  # noqa: E402
from rpcarena.target_runner import native as target_native  # noqa: E402
from rpcarena.target_runner.cells import TargetCells  # noqa: E402
from rpcarena.targets import build as target_build  # noqa: E402

PEERS = {"grpc-go": "ghz", "grpc-tonic": "ghz", "rest-warp": "wrk"}
# rpcarena's clients per server (--client ids): the first is judged against the peer, the
# others are measured in the same rounds for reference.
DRIVERS = {"grpc-go": ("go",), "grpc-tonic": ("rust",), "rest-warp": ("rust-h1", "rust")}
# the ids standing for `rpcarena target --client X` in DRIVERS, and their X
TARGETS = {"target-go": "go", "target-rust": "rust"}
# --drivers target: what calls each kind of server (the Rust driver speaks HTTP/1.1 only; Go's
# is measured beside it there, for reference)
TARGET_DRIVERS = {"ghz": ("target-go",), "wrk": ("target-rust", "target-go")}
WORKLOAD = "hprpc.hello"
PROTO = Path(__file__).resolve().parent.parent / "proto" / "arena.proto"
P50_TOLERANCE = 1.10
TIE_BAND = 0.05  # a paired ratio within 5 % of the goal is a tie within noise (rounds here swing 2-10 %)
BOUND = 0.90  # a CPU this busy is the ceiling: the server's one CPU, or the load generators' CPUs
VERSION = 3  # 2: rpcarena_runs by driver (--client id); 3: a row's "shared" connections (--multiplexed)


@dataclass(frozen=True)
class Level:
    """N concurrent calls, each on its own connection, or all over `shared` connections."""

    clients: int
    shared: int | None = None

    def __str__(self) -> str:
        return f"{self.clients}/{self.shared}" if self.shared else str(self.clients)


def parse_levels(text: str, multiplexed: str) -> list[Level]:
    """--connections 1,32,64 (one connection each) and --multiplexed 50/1 (N calls over M connections)."""
    levels = [Level(n) for n in parse_ints(text, "--connections")] if text else []  # '': the N/M rows only
    for item in parse_names(multiplexed, "--multiplexed") if multiplexed else []:
        n, _, m = item.partition("/")
        if not (n.isdigit() and m.isdigit() and 1 <= int(m) <= int(n)):
            raise SystemExit(f"error: bad --multiplexed {item!r}: give N/M, N calls over M connections, 1 <= M <= N")
        levels.append(Level(int(n), int(m)))
    return levels


@dataclass(frozen=True)
class Setup:
    duration_s: float
    warmup_s: float
    placement: Placement
    logs: Path
    driver_env: dict = field(default_factory=dict)


@contextlib.contextmanager
def driver_env(extra: dict):
    """Environment for the driver process only (it inherits ours when started)."""
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def peer_once(server_id: str, level: Level, setup: Setup) -> Measurement:
    """A fresh server, warmed and then measured by the peer."""
    workload = seeds.WORKLOADS[WORKLOAD]
    with ServerProcess(contenders.get(server_id), "127.0.0.1", setup.placement.server,
                       setup.logs / "server.log") as server:
        server.start()
        run = _peer_call(PEERS[server_id], server.target, workload, level, setup.placement.clients)
        if setup.warmup_s > 0:
            run(setup.warmup_s)
        before = server.usage()
        measured = run(setup.duration_s)
        return with_server_cpu(measured, server.usage() - before)


def with_server_cpu(m: Measurement, used) -> Measurement:
    cpu_s = used.cpu_user_s + used.cpu_sys_s
    return replace(m, server_cpu_us_per_call=cpu_s / m.calls * 1e6 if m.calls else None)


def _peer_call(peer: str, target: str, workload, level: Level, cpus):
    if peer == "ghz":
        fixed = _ghz_fixed(target, workload, cpus)
        return lambda s: ghz(target, workload.method, workload.requests[0], level.clients, s, cpus, fixed,
                             shared=level.shared)
    url = f"http://{target}/arena/{workload.method}"
    return lambda s: wrk(url, workload.requests[0], level.clients, s, cpus)


_FIXED: dict[str, float] = {}


def _ghz_fixed(target: str, workload, cpus) -> float:
    """ghz's start-up CPU, measured once per run (against the first server it meets)."""
    if "ghz" not in _FIXED:
        _FIXED["ghz"] = ghz_fixed_cpu_s(target, workload.method, workload.requests[0], cpus)
        print(f"(ghz start-up: {_FIXED['ghz'] * 1e3:.0f} ms CPU, taken off its CPU per call)", flush=True)
    return _FIXED["ghz"]


def native_once(server_id: str, client: str, level: Level, setup: Setup) -> Measurement:
    """A fresh server measured by rpcarena's native client `client` (a --client id), or by
    `rpcarena target --client X` when `client` is one of TARGETS."""
    contender = contenders.get(server_id)
    connections = level.clients
    config = RunConfig(contenders=[server_id], workloads=[WORKLOAD], clients=[connections],
                       duration_s=setup.duration_s, warmup_s=setup.warmup_s, connections=level.shared)
    p = Plan(contender, client, seeds.WORKLOADS[WORKLOAD], connections, 0, CONTENDER_CELLS,
             contenders.client_language(client))
    with ServerProcess(contender, "127.0.0.1", setup.placement.server, setup.logs / "server.log") as server:
        server.start()
        specs = (_target_specs(contender, TARGETS[client], server.target, connections, config) if client in TARGETS
                 else driver_specs(p, contender, config, server.target))
        drive = phase.Phase(specs, setup.placement.clients, setup.logs, server.alive, server.died_message)
        before: list = []
        with driver_env(setup.driver_env):  # the server is started already: only the driver sees it
            outcome = drive.run(lambda: before.append(server.usage()), setup.warmup_s + setup.duration_s + 60)
        used = server.usage() - before[0]
    result = outcome.result
    pct = hist.percentiles(hist.decode(result.histogram), (50.0, 99.0))
    cpu_s = result.cpu_user_s + result.cpu_sys_s
    measured = Measurement(f"rpcarena-{client}", result.calls, result.calls / result.wall_s,
                           pct[50.0] / 1e3, pct[99.0] / 1e3, result.error_counts,
                           cpu_s / result.calls * 1e6 if result.calls else None)
    if outcome.counters_include_warmup:  # a driver without the sync handshake
        return measured
    return with_server_cpu(measured, used)


def _target_specs(contender, client: str, address: str, connections: int, config: RunConfig) -> list:
    """The server as `rpcarena target` sees one it did not start: its address and the call."""
    workload = seeds.WORKLOADS[WORKLOAD]
    request = workload.requests[0]
    checks = [f"{key}={value}" for key, value in workload.responses[0].items()]
    if contender.protocol == "grpc":
        group = {"kind": "grpc", "address": address, "method": f"arena.Arena/{workload.method}", "proto": str(PROTO),
                 "data": json.dumps(request), "expect_json": checks}
    else:
        group = {"kind": "http", "address": f"http://{address}/arena/{workload.method}",
                 "body": json.dumps(request), "expect_json": checks}
    target = target_build.build(group, contender.id, 1, config.timeout_ms / 1000)
    plan_ = Plan(target, client, target.workload, connections, 0, TargetCells(target),
                 contenders.client_language(client))
    return target_native.driver_specs(target, plan_, config)


def median(runs: list[Measurement]) -> Measurement:
    """Per-field medians over rounds; errors summed."""
    errors: dict = {}
    for m in runs:
        for kind, n in m.errors.items():
            errors[kind] = errors.get(kind, 0) + n
    return Measurement(runs[0].tool, sum(m.calls for m in runs),
                       statistics.median(m.calls_per_s for m in runs),
                       statistics.median(m.p50_us for m in runs), statistics.median(m.p99_us for m in runs), errors,
                       statistics.median(m.cpu_us_per_call or 0.0 for m in runs),
                       _median_or_none([m.server_cpu_us_per_call for m in runs]))


def _median_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def measure(server_id: str, connections: Level, rounds: int, setup: Setup) -> tuple[list, dict[str, list]]:
    """Alternate the peer and rpcarena's clients, reversing the order each round (drift hits all)."""
    peer: list = []
    ours: dict[str, list] = {client: [] for client in DRIVERS[server_id]}
    order = [(functools.partial(peer_once, server_id), peer)] + [
        (functools.partial(native_once, server_id, client), runs) for client, runs in ours.items()]
    for r in range(rounds):
        for run, into in (order if r % 2 == 0 else order[::-1]):
            started = time.monotonic()
            m = run(connections, setup)
            into.append(replace(m, elapsed_s=round(time.monotonic() - started, 2)))
    return peer, ours


def _errors(m: Measurement) -> str:
    return ",".join(f"{k}={n}" for k, n in sorted(m.errors.items())) or "-"


HEADER = (f"{'server':<11}{'conns':>5} {'peer':>5} {'ours':>8} {'peer calls/s':>13} {'ours calls/s':>13} {'ratio':>6}  "
          f"{'peer p50/p99 us':>16}  {'ours p50/p99 us':>16} {'p50 ratio':>9}  {'client CPU us/call':>19}  {'server CPU us/call':>18}  {'server busy':>11}  "  # noqa: E501
          f"errors peer / ours")


def row(server_id: str, connections: Level, peer_runs: list[Measurement], our_runs: list[Measurement]) -> str:
    """Medians over rounds; the ratios are the medians of the paired ratios the goals judge."""
    peer, ours = median(peer_runs), median(our_runs)
    calls_ratio = statistics.median(paired(our_runs, peer_runs, "calls_per_s"))
    p50_ratio = statistics.median(paired(our_runs, peer_runs, "p50_us"))
    return (f"{server_id:<11}{str(connections):>5} {peer.tool:>5} {ours.tool.removeprefix('rpcarena-'):>8} {peer.calls_per_s:>13,.0f} {ours.calls_per_s:>13,.0f} "  # noqa: E501
            f"{calls_ratio:>6.2f}  {peer.p50_us:>7.0f}/{peer.p99_us:<8.0f}  "
            f"{ours.p50_us:>7.0f}/{ours.p99_us:<8.0f} {p50_ratio:>9.2f}  "
            f"{peer.cpu_us_per_call:>9.1f}/{ours.cpu_us_per_call:<9.1f}  "
            f"{_us(peer.server_cpu_us_per_call):>8}/{_us(ours.server_cpu_us_per_call):<9}  "
            f"{_busy(peer):>5}/{_busy(ours):<5}  "
            f"{_errors(peer)} / {_errors(ours)}")


def _busy(m: Measurement) -> str:
    """The server's CPU use in the measured phase, as a share of the one CPU it is pinned to: near
    100 % the server is the ceiling, and any two load generators that reach it tie."""
    if not m.server_cpu_us_per_call:
        return "-"
    return f"{m.server_cpu_us_per_call * m.calls_per_s / 1e4:.0f}%"


def _us(value: float | None) -> str:
    return f"{value:.1f}" if value else "-"


def goals(rows: list[tuple[str, Level, list[Measurement], list[Measurement]]], client_cpus: int = 1) -> list[str]:
    """Each goal judged on the rounds' paired ratios (rpcarena's run / the peer's run of the same
    round, back to back), which cancel the machine's drift between rounds; each says who was CPU-bound."""
    out = []
    for server_id, level, peer, ours in rows:
        tool, peer_tool = ours[0].tool, peer[0].tool
        ratios = paired(ours, peer, "calls_per_s")
        out.append(f"  {server_id} x{level} ({tool}): calls/s >= {peer_tool}: "
                   f"{verdict(ratios, lambda r, band=1.0: r >= band, 1.0 - TIE_BAND)}{bound(peer, ours, client_cpus)}")
        if level == Level(1):
            ratios = paired(ours, peer, "p50_us")
            out.append(f"  {server_id} x1 ({tool}): p50 within 10% of {peer_tool}: "
                       f"{verdict(ratios, lambda r, band=P50_TOLERANCE: r <= band, P50_TOLERANCE * (1 + TIE_BAND))}")
    return out


def bound(peer: list[Measurement], ours: list[Measurement], client_cpus: int) -> str:
    """'; server CPU-bound (98%/99% busy)' and the like: who was at its CPU's ceiling, in the rounds' medians."""
    said = []
    server = [_share(median(runs).server_cpu_us_per_call, median(runs).calls_per_s, 1) for runs in (peer, ours)]
    if all(s is not None and s >= BOUND for s in server):
        said.append(f"server CPU-bound ({server[0]:.0%}/{server[1]:.0%} busy under {peer[0].tool}/{ours[0].tool})")
    loaded = _share(median(peer).cpu_us_per_call, median(peer).calls_per_s, client_cpus)
    if loaded is not None and loaded >= BOUND:
        said.append(f"{peer[0].tool} CPU-bound ({loaded:.0%} of its {client_cpus} CPU(s))")
    return "; " + "; ".join(said) if said else ""


def _share(us_per_call: float | None, calls_per_s: float, cpus: int) -> float | None:
    """The share of `cpus` CPUs that `us_per_call` at `calls_per_s` keeps busy."""
    return us_per_call * calls_per_s / 1e6 / cpus if us_per_call else None


def paired(ours: list[Measurement], peer: list[Measurement], field_name: str) -> list[float]:
    """Per round, rpcarena's value over the peer's (the two ran back to back)."""
    return [getattr(o, field_name) / getattr(p, field_name) for o, p in zip(ours, peer)]


def verdict(ratios: list[float], holds: Callable[..., bool], band: float) -> str:
    """met when the median paired ratio meets the goal; a tie within noise when it meets the goal
    moved to the edge of the tolerance band (`holds(r, band)`) or some round meets the goal; NOT met
    only when every round misses the band too (a sign test: with 5 rounds, p = 1/32 that a tie
    misses 5 times)."""
    median_ratio = statistics.median(ratios)
    rounds = " ".join(f"{r:.2f}" for r in ratios)
    if holds(median_ratio):
        word = "met"
    elif holds(median_ratio, band) or any(holds(r) for r in ratios):
        word = f"a tie within noise (inside the {TIE_BAND:.0%} band, or the rounds straddle the goal)"
    elif any(holds(r, band) for r in ratios):
        word = "not met, not significant (some rounds inside the band)"
    else:
        word = "NOT met"
    return f"{word} ({median_ratio:.2f}x; rounds {rounds})"


def prepare(server_ids: list[str]) -> None:
    """Peers and native workers, installed or built before anything is timed."""
    peers = {PEERS[s] for s in server_ids}
    if "ghz" in peers:
        ghz_path()
    if "wrk" in peers:
        ensure_system_tools()
    for language in sorted({contenders.get(s).language for s in server_ids}):
        native.workers()[language].ensure_built()


def save(out: Path, args, setup: Setup, load: dict, results: list) -> None:
    doc = {"version": VERSION, "benchmark": "peer_capacity", "workload": WORKLOAD,
           "config": {"duration_s": args.duration, "warmup_s": args.warmup, "rounds": args.rounds,
                      "connections": [str(level) for level in args.connections], "servers": args.servers,
                      "rust_threads": args.rust_threads, "drivers": args.drivers},
           "placement": setup.placement.as_dict(), "environment": environment.snapshot(), "load": load,
           "rows": [{"server": s, "connections": c.clients, "shared": c.shared, "peer_runs": [asdict(m) for m in p],
                     "rpcarena_runs": {client: [asdict(m) for m in runs] for client, runs in o.items()}}
                    for s, c, p, o in results]}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")


def run(args, setup: Setup) -> list:
    print(HEADER, flush=True)
    results = []
    for server_id in args.servers:
        for connections in args.connections:
            if connections.shared and PEERS[server_id] != "ghz":
                continue  # wrk has no calls in flight beside its connections: N over M is ghz's and gRPC's
            peer, ours = measure(server_id, connections, args.rounds, setup)
            results.append((server_id, connections, peer, ours))
            for runs in ours.values():
                print(row(server_id, connections, peer, runs), flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5,
                        help="measured seconds per run (whole: wrk takes no fractions)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured seconds before each run (whole)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating peer/rpcarena rounds per level (medians)")
    parser.add_argument("--connections", default="1,32,64")
    parser.add_argument("--multiplexed", default="50/1",
                        help="N/M levels for the gRPC servers: N calls over M connections (ghz --concurrency N "
                             "--connections M, the driver's connections M); '' for none")
    parser.add_argument("--servers", default=",".join(PEERS))
    parser.add_argument("--rust-threads", type=int, default=None,
                        help="RPCARENA_RUST_THREADS for the Rust driver only (default: one per CPU it is pinned to)")
    parser.add_argument("--drivers", choices=("native", "target"), default="native",
                        help="rpcarena's side: its contenders' native clients, or `rpcarena target` with "
                             "--client rust (HTTP/1.1) and go")
    parser.add_argument("--out", type=Path, default=Path("results/peer_capacity.json"))
    args = parser.parse_args()
    if args.drivers == "target":  # judged against the peers
        DRIVERS.update({s: TARGET_DRIVERS[peer] for s, peer in PEERS.items()})
    try:
        args.connections = parse_levels(args.connections, args.multiplexed)
        args.servers = parse_names(args.servers)
        unknown = [s for s in args.servers if s not in PEERS]
        if unknown:
            raise SystemExit(f"error: no peer for {', '.join(unknown)}: use some of {', '.join(PEERS)}")
        prepare(args.servers)
        env = {"RPCARENA_RUST_THREADS": str(args.rust_threads)} if args.rust_threads else {}
        setup = Setup(args.duration, args.warmup, plan("split"), Path(tempfile.mkdtemp(prefix="peer-capacity-")), env)
        print(f"placement: server CPUs {setup.placement.server}, load generators on {setup.placement.clients}; "
              f"{args.duration:g} s measured after {args.warmup:g} s warm-up, {args.rounds} round(s); "
              f"SayHello ({WORKLOAD})")
        load = {"before": os.getloadavg()}
        print(f"load average before: {' '.join(f'{x:.2f}' for x in load['before'])}", flush=True)
        results = run(args, setup)
        load["after"] = os.getloadavg()
        print(f"load average after:  {' '.join(f'{x:.2f}' for x in load['after'])}")
    except (ArenaError, PeerError) as error:
        print(f"error: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 1)
    print("goals (ratios are rpcarena / peer; judged on each server's first client, "
          "the others are for reference):")
    print("\n".join(goals([(s, c, p, o[DRIVERS[s][0]]) for s, c, p, o in results], len(setup.placement.clients or ())
                           or 1)))
    save(args.out, args, setup, load, results)
    print(f"runs: {args.out}; logs: {setup.logs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
