"""Do rpcarena's open-loop drivers keep their schedule, or do they charge their own lateness to the server?

Open-loop latency is measured from each call's intended start (wrk2), so a driver that wakes up
late adds its lateness to every call. The yardstick is the pacing error: the corrected p50
(due -> done) minus the uncorrected p50 (sent -> done) of the same calls. It is near zero when
the driver sends each call when it is due.

One fresh grpc-go server per measurement (usp.int32, pinned as the arena pins it: `split`). Its
closed-loop capacity is measured first, by each driver (--drivers py, go, rust, java) at the
open loop's --clients: on this machine the drivers share one CPU, so the capacity a driver can
load the server to is its own (the Python driver spends ~400 us of CPU a call in grpcio, the Go
driver ~70 us). Each driver then runs at 10 %, 30 % and 60 % of that capacity (--shares-of own,
the default), or of the capacity the Go driver reaches at --capacity-clients clients (--shares-of
server, or given with --capacity: a rate above a driver's own capacity cannot be kept by any
pacing, and that row says so), beside ghz `--rps` at the same rate and connections, in
alternating rounds (the order reversed each round, so drift hits every driver alike). It prints
per driver and rate the medians over rounds of corrected p50/p99, uncorrected p50, the schedule
lag p50 (due -> sent) where the driver reports it, the pacing error, ghz's p50 at the same rate
and the closed-loop p50 at one client, the share of a CPU the driver itself kept busy (its CPU time
over the measured phase: a driver near its own CPU's limit queues its calls behind its own work,
which no timer can fix), with the CPUs that processes outside the benchmark took during each
row's runs (the machine may be shared: read from /proc as process/contention.py reads a cell's
other load; the load average would count the benchmark's own server and drivers), and whether
the goal holds: a pacing error of at most 10 % of the uncorrected p50, or 20 us; a row whose runs
saw others take 0.25 CPUs or more is not judged ("void"), and the last line says whether the
whole table can be.

    .venv/bin/python benchmarks/open_loop.py [--duration 3] [--warmup 1] [--rounds 2]
        [--drivers py,go,rust,java] [--shares 10,30,60] [--shares-of own|server] [--clients 4] [--capacity N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _peers import PeerError, ghz_path, ghz_rate  # noqa: E402
from rpcarena import contenders, seeds  # noqa: E402
from rpcarena.config import RunConfig, parse_ints, parse_names  # noqa: E402
from rpcarena.contenders import native  # noqa: E402
from rpcarena.errors import ArenaError  # noqa: E402
from rpcarena.orchestration import phase  # noqa: E402
from rpcarena.orchestration.contender_cells import CONTENDER_CELLS, driver_specs  # noqa: E402
from rpcarena.orchestration.plan import Plan  # noqa: E402
from rpcarena.process import contention  # noqa: E402
from rpcarena.process.placement import Placement, plan  # noqa: E402
from rpcarena.process.server_process import ServerProcess  # noqa: E402
from rpcarena.record import hist  # noqa: E402

SERVER = "grpc-go"
WORKLOAD = "usp.int32"
DRIVERS = ("py", "go", "rust", "java")
GOAL_SHARE, GOAL_FLOOR_US = 0.10, 20.0
# Above this many CPUs taken by processes outside the benchmark during a row's runs, other work took
# the drivers' CPUs: the goal is then not judged (a driver that could not run cannot keep a schedule).
GOAL_MAX_OTHERS = 0.25


@dataclass(frozen=True)
class Setup:
    duration_s: float
    warmup_s: float
    clients: int
    placement: Placement
    logs: Path


@dataclass(frozen=True)
class Point:
    """One measured run at one rate (us); lag is None where the driver does not report it."""

    calls_per_s: float
    p50: float
    p99: float
    uncorrected_p50: float | None = None
    lag_p50: float | None = None
    others: float = 0.0  # CPUs taken by processes outside the benchmark during the run
    driver_cpu: float | None = None  # the CPUs the driver itself kept busy over its measured phase

    @property
    def pacing_error(self) -> float | None:
        return None if self.uncorrected_p50 is None else self.p50 - self.uncorrected_p50


def _others(before: contention.Reading) -> float:
    """The CPUs that processes outside this benchmark (and outside the servers, drivers and ghz it
    started) took since `before`."""
    phase_ = before.until(contention.read(None))
    return phase_["others_cpu_s"] / max(phase_["phase_s"], 1e-9)


def rpcarena_once(client: str, rate: float | None, clients: int, setup: Setup) -> Point:
    """A fresh server driven by rpcarena's `client` driver, open loop at `rate` (closed when None)."""
    contender = contenders.get(SERVER)
    config = RunConfig(contenders=[SERVER], workloads=[WORKLOAD], clients=[clients], duration_s=setup.duration_s,
                       warmup_s=setup.warmup_s, rate_per_s=rate)
    p = Plan(contender, client, seeds.WORKLOADS[WORKLOAD], clients, 0, CONTENDER_CELLS,
             contenders.client_language(client))
    with ServerProcess(contender, "127.0.0.1", setup.placement.server, setup.logs / "server.log") as server:
        server.start()
        before = contention.read(None)
        drive = phase.Phase(driver_specs(p, contender, config, server.target), setup.placement.clients,
                            setup.logs, server.alive, server.died_message)
        result = drive.run(lambda: None, setup.warmup_s + setup.duration_s + 60).result
    return Point(result.calls / result.wall_s, *_p50_p99(result.histogram),
                 _p50(result.histogram_uncorrected), _p50(result.histogram_schedule_lag), _others(before),
                 (result.cpu_user_s + result.cpu_sys_s) / result.wall_s)


def ghz_once(rate: float, clients: int, setup: Setup) -> Point:
    """A fresh server, warmed and then measured by ghz --rps at `rate` over `clients` connections."""
    workload = seeds.WORKLOADS[WORKLOAD]
    with ServerProcess(contenders.get(SERVER), "127.0.0.1", setup.placement.server,
                       setup.logs / "server.log") as server:
        server.start()

        def run(seconds: float) -> Point:
            before = contention.read(None)
            m = ghz_rate(server.target, workload.method, workload.requests[0], clients, rate, seconds,
                         setup.placement.clients)
            return Point(m.calls_per_s, m.p50_us, m.p99_us, others=_others(before))

        run(setup.warmup_s)
        return run(setup.duration_s)


def _p50_p99(encoded: str) -> tuple[float, float]:
    pct = hist.percentiles(hist.decode(encoded), (50.0, 99.0))
    return pct[50.0] / 1e3, pct[99.0] / 1e3


def _p50(encoded: str | None) -> float | None:
    return None if not encoded else _p50_p99(encoded)[0]


def measure(rates: dict[str, list[float]], rounds: int, setup: Setup) -> dict:
    """Every driver at each of its rates, and ghz at each rate once, `rounds` times, the order
    reversed each round."""
    order = [(who, rate) for driver, own in rates.items() for rate in own for who in (driver, "ghz")]
    order = list(dict.fromkeys(order))  # ghz once per rate: drivers may share one
    runs: dict = {key: [] for key in order}
    for r in range(rounds):
        for who, rate in (order if r % 2 == 0 else order[::-1]):
            point = (ghz_once(rate, setup.clients, setup) if who == "ghz"
                     else rpcarena_once(who, rate, setup.clients, setup))
            runs[(who, rate)].append(point)
    return runs


def _median(points: list[Point], name: str) -> float | None:
    values = [getattr(p, name) for p in points if getattr(p, name) is not None]
    return statistics.median(values) if values else None


def _share(cpus: float | None) -> str:
    return "-" if cpus is None else f"{cpus:.0%}"


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


HEADER = (f"{'driver':<6}{'share':>6}{'rate/s':>8}{'got/s':>8}{'corr p50':>11}{'corr p99':>11}{'uncorr p50':>11}"
          f"{'lag p50':>10}{'pacing err':>11}{'ghz p50':>10}{'ghz p99':>10}{'closed p50':>11}{'drv CPU':>8}"
          f"{'others':>7}  goal (us)")


def row(driver: str, share: int, rate: float, runs: dict, closed_p50: dict, driver_max: dict) -> str:
    ours, peer = runs[(driver, rate)], runs[("ghz", rate)]
    error, uncorrected = _median(ours, "pacing_error"), _median(ours, "uncorrected_p50")
    others = max(p.others for p in ours)
    goal = "-" if error is None or uncorrected is None else (
        f"void (others took {others:.2f} CPUs >= {GOAL_MAX_OTHERS:g})" if others >= GOAL_MAX_OTHERS
        else "met" if error <= max(GOAL_SHARE * uncorrected, GOAL_FLOOR_US)
        else f"NOT met: over the driver's capacity ({driver_max[driver]:,.0f}/s)" if rate > driver_max[driver]
        else "NOT met")
    return (f"{driver:<6}{share:>5}%{rate:>8,.0f}{_us(_median(ours, 'calls_per_s')):>8}{_us(_median(ours, 'p50')):>11}"
            f"{_us(_median(ours, 'p99')):>11}{_us(uncorrected):>11}{_us(_median(ours, 'lag_p50')):>10}"
            f"{_us(error):>11}{_us(_median(peer, 'p50')):>10}{_us(_median(peer, 'p99')):>10}"
            f"{_us(closed_p50.get(driver)):>11}{_share(_median(ours, 'driver_cpu')):>8}{others:>7.2f}  {goal}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=3.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each run")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (medians over them)")
    parser.add_argument("--drivers", default=",".join(DRIVERS))
    parser.add_argument("--shares", default="10,30,60", help="rates as percentages of the closed-loop capacity")
    parser.add_argument("--shares-of", choices=("own", "server"), default="own",
                        help="own: each driver's capacity at --clients; server: the Go driver's at --capacity-clients")
    parser.add_argument("--clients", type=int, default=4, help="connections of every open-loop run (and ghz's)")
    parser.add_argument("--capacity-clients", type=int, default=8, help="closed-loop clients measuring capacity")
    parser.add_argument("--capacity", type=float, default=None, help="the capacity in calls/s (not measured)")
    args = parser.parse_args()
    try:
        drivers, shares = parse_names(args.drivers), parse_ints(args.shares, "--shares")
        ghz_path()
        for language in ("go", *[d for d in drivers if d != "py"]):
            native.workers()[language].ensure_built()
        setup = Setup(args.duration, args.warmup, args.clients, plan("split"),
                      Path(tempfile.mkdtemp(prefix="open-loop-")))
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {SERVER} {WORKLOAD}; "
              f"server CPUs {setup.placement.server}, drivers on {setup.placement.clients}; "
              f"{args.duration:g} s after {args.warmup:g} s warm-up, {args.rounds} round(s), {args.clients} clients",
              flush=True)
        capacity = args.capacity or rpcarena_once("go", None, args.capacity_clients, setup).calls_per_s
        closed_p50 = {d: rpcarena_once(d, None, 1, setup).p50 for d in drivers}
        driver_max = {d: rpcarena_once(d, None, args.clients, setup).calls_per_s for d in drivers}
        own = args.shares_of == "own" and not args.capacity
        rates = {d: [round((driver_max[d] if own else capacity) * s / 100) for s in shares] for d in drivers}
        print(f"closed-loop capacity {capacity:,.0f} calls/s ({args.capacity_clients} Go clients); each driver's "
              f"own at {args.clients} clients: {', '.join(f'{d} {c:,.0f}' for d, c in driver_max.items())}; rates "
              f"are shares of {'each driver' + chr(39) + 's own' if own else 'the first'}", flush=True)
        runs = measure(rates, args.rounds, setup)
    except (ArenaError, PeerError) as error:
        print(f"error: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 1)
    print(HEADER)
    for k, share in enumerate(shares):
        for driver in drivers:
            print(row(driver, share, rates[driver][k], runs, closed_p50, driver_max))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"goal: pacing error <= {GOAL_SHARE:.0%} of the uncorrected p50 or {GOAL_FLOOR_US:g} us; logs {setup.logs}")
    print(verdict(runs, rates, driver_max))
    return 0


def verdict(runs: dict, rates: dict[str, list[float]], driver_max: dict) -> str:
    """One line: the goal met or not over every row (a miss above the driver's own capacity marked
    so: no pacing keeps a rate the driver cannot send), or void when the load was too high to judge."""
    others = [p.others for points in runs.values() for p in points]
    if max(others, default=0.0) >= GOAL_MAX_OTHERS:
        return (f"judgement VOID: processes outside the benchmark took up to {max(others):.2f} CPUs (>= "
                f"{GOAL_MAX_OTHERS:g}) during the runs; they took the drivers' CPUs: rerun on a quiet machine")
    missed = [f"{d}@{r:,.0f}" + (" (over the driver's capacity)" if r > driver_max[d] else "")
              for d, own in rates.items() for r in own
              if (e := _median(runs[(d, r)], "pacing_error")) is not None
              and (u := _median(runs[(d, r)], "uncorrected_p50")) is not None
              and e > max(GOAL_SHARE * u, GOAL_FLOOR_US)]
    return "goal met by every driver at every rate" if not missed else f"goal NOT met: {', '.join(missed)}"


if __name__ == "__main__":
    sys.exit(main())
