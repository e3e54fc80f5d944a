"""Open-loop load: latency from the intended start, so a stall cannot hide (wrk2)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from rpcarena.analysis import slo, stability
from rpcarena.analysis.groups import group
from rpcarena.errors import UsageError
from rpcarena.process import placement
from rpcarena.record import hist
from rpcarena.results import Cell, load
from tests.conftest import cli, command_of, descendants, popen_cli, wait_for

pytestmark = pytest.mark.serial  # timing-sensitive: an open loop keeps its schedule only with a CPU to itself

STALL_S = 0.3
RATE = 100
# what a driver warms up for at --warmup 0 (the JVM's manifest asks for at least 5 s)
WARMUP_S = {"py": 0.0, "go": 0.0, "rust": 0.0, "java": 5.0}


def _above(h, threshold_ns: float) -> int:
    """How many recorded values of a histogram are at or above `threshold_ns`."""
    return sum(v.count_at_value_iterated_to for v in h.get_recorded_iterator() if v.value_iterated_to >= threshold_ns)


def _server_and_driver(cli: psutil.Process, contender: str) -> psutil.Process | None:
    """The contender's server once a driver has connected to it (its measured phase is near)."""
    procs = descendants(cli)
    servers = [p for p in procs if "serve" in command_of(p).split() or "rpcarena.python_server.serve" in command_of(p)]
    server = next((p for p in servers if contender in command_of(p).split()), None)
    drivers = [p for p in procs if "drive" in command_of(p).split() or "rpcarena.worker.drive" in command_of(p)]
    if server is None or not drivers:
        return None
    with contextlib.suppress(psutil.Error):
        if any(c.status == psutil.CONN_ESTABLISHED for c in server.net_connections("tcp")):
            return server
    return None


def _interrupt(cli: subprocess.Popen) -> None:
    """A run still going when the test failed: Ctrl-C to its group, which stops what it started."""
    if cli.poll() is None:
        os.killpg(cli.pid, signal.SIGINT)
        cli.communicate(timeout=60)


@pytest.mark.parametrize("client", list(WARMUP_S))
def test_a_stall_shows_in_the_corrected_histogram_only(tmp_path, client):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "grpc-go", "--client", client, "--workload", "usp.int32",
                    "--rate", str(RATE), "--duration", "6s", "--warmup", "0", "--warmup-max", "0", "--out", str(out))
    try:
        server = wait_for(lambda: _server_and_driver(psutil.Process(cli.pid), "grpc-go"), timeout_s=120)
        # into the measured phase, 2 s after its start (a loaded machine starts a JVM's calls a
        # second or more after its connection) and 4 s before its end
        time.sleep(WARMUP_S[client] + 2.0)
        server.suspend()  # the server stalls once, for STALL_S
        time.sleep(STALL_S)
        server.resume()
        _, stderr = cli.communicate(timeout=180)
    finally:
        _interrupt(cli)
    assert cli.returncode == 0, stderr
    (cell,) = load(out).cells
    corrected = cell.histogram
    uncorrected = hist.decode(cell.latency_uncorrected_histogram)
    lag = hist.decode(cell.schedule_lag_histogram)
    assert corrected.get_total_count() == uncorrected.get_total_count() == lag.get_total_count() == cell.calls
    stalled_calls = int(STALL_S * RATE)
    # every call due during the stall waited for it, from its due time: the corrected tail holds them
    assert _above(corrected, STALL_S / 3 * 1e9) >= stalled_calls // 3
    # measured from the actual send, the calls due during the stall did not wait for it: they are in the
    # corrected tail only (a call that was slow for another reason, such as a loaded machine descheduling
    # the JVM's thread, is slow in both, so it cannot make up the difference)
    corrected_only = _above(corrected, STALL_S / 3 * 1e9) - _above(uncorrected, STALL_S / 3 * 1e9)
    assert corrected_only >= stalled_calls // 3
    # the calls due during the stall were sent late, because the one client was waiting for a reply
    assert _above(lag, STALL_S / 3 * 1e9) >= stalled_calls // 3
    assert cell.late_calls >= stalled_calls // 3


def _busy_loops(cpus: set[int], n: int) -> list[subprocess.Popen]:
    """`n` processes that spin on `cpus`: a driver pinned there gets a fraction of its CPU."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True,
                             preexec_fn=lambda: os.sched_setaffinity(0, cpus)) for _ in range(n)]


# Busy loops per client CPU. The driver sleeps between calls and the scheduler favours a waking
# sleeper, so against 4 loops (a 20% fair share) a Python driver at 2,000 calls/s kept up in about
# half the runs on a fast idle CPU: late calls, yet a median lag near zero and no diagnosis. With 12
# its share (8%) is well below what 2,000 calls/s take in Python, and it falls behind every time.
LOOPS_PER_CPU = 12


def _starved_run(out) -> list[str]:
    """One open-loop run whose Python driver shares its CPUs with busy loops: its diagnoses."""
    client_cpus = set(placement.plan("split").clients or ())
    loops = _busy_loops(client_cpus, LOOPS_PER_CPU * len(client_cpus))
    try:
        done = cli("run", "--contender", "grpc-go", "--client", "py", "--workload", "usp.int32",
                   "--rate", "2000", "--duration", "2s", "--warmup", "0", "--force", "--out", str(out))
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    assert done.returncode == 0, done.stderr
    (cell,) = load(out).cells
    lag = hist.decode(cell.schedule_lag_histogram)
    assert lag.get_total_count() == cell.calls > 0
    seen = f"lag p50 {lag.get_value_at_percentile(50) / 1e3:.0f} us of p50 {cell.latency.get('p50_us'):.0f} us"
    return [d.kind for d in stability.diagnoses(group([cell])[0], cpus=2)] + [seen]


def test_a_driver_starved_of_its_cpu_is_said_to_fall_behind(tmp_path):
    kinds = _starved_run(tmp_path / "r.json")
    assert "schedule-lag" in kinds, kinds


def test_the_rate_is_kept(tmp_path):
    out = tmp_path / "r.json"
    cli = popen_cli("run", "--contender", "tcp-raw", "--workload", "usp.void", "--rate", "200", "--clients", "2",
                    "--duration", "1s", "--warmup", "0", "--out", str(out))
    _, stderr = cli.communicate(timeout=120)
    assert cli.returncode == 0, stderr
    (cell,) = load(out).cells
    assert cell.calls == 200  # a fixed schedule: the count is the rate times the duration
    assert cell.rate_per_s == 200


@pytest.mark.parametrize("text,statistic,limit_us", [("p99<5ms", "p99", 5000), ("p99.9<=20ms", "p99.9", 20000),
                                                     ("mean<750us", "mean", 750)])
def test_slo_parsing(text, statistic, limit_us):
    (objective,) = slo.parse(text)
    assert (objective.statistic, objective.limit_us) == (statistic, pytest.approx(limit_us))


@pytest.mark.parametrize("text", ["p99", "p99>5ms", "fast", "p99<soon"])
def test_slo_rejects(text):
    with pytest.raises(UsageError, match="--slo"):
        slo.parse(text)


def test_slo_verdict_from_a_histogram():
    h = hist.new()
    for value_ns in [1_000_000] * 98 + [10_000_000] * 2:
        h.record_value(value_ns)
    cell = Cell(contender="x", client="py", workload="w", method="Void", clients=1, calls=100,
                latency_histogram=hist.encode(h))
    assert slo.verdict(cell, slo.parse("p98<2ms"))
    assert not slo.verdict(cell, slo.parse("p99<2ms"))
    cell = dataclasses.replace(cell, errors={"timeout": 1})
    assert not slo.verdict(cell, slo.parse("p98<2ms"))


def test_the_drivers_of_one_cell_interleave_their_calls_instead_of_sending_together():
    """Four Python driver processes at 250/s each make 1,000 calls/s one every ms between them, as one
    driver would; each on an unshifted schedule of its own sent four calls at once every 4 ms."""
    from rpcarena.contract import DriveSpec
    from rpcarena.orchestration.phase import split
    from rpcarena.worker.pacer import Schedule
    spec = DriveSpec(contender="grpc-py", target="127.0.0.1:1", method="Void", requests=[{}], clients=4,
                     duration_s=0.02, rate_per_s=1000.0)
    parts = split(spec, 4)
    assert [p.schedule_offset_ns for p in parts] == [None, 1_000_000, 2_000_000, 3_000_000]
    assert all(p.rate_per_s == 250.0 for p in parts)
    assert DriveSpec.from_line(parts[1].to_line()).schedule_offset_ns == 1_000_000
    dues = []
    for part in parts:
        schedule = Schedule(part.rate_per_s, "constant", 0, None, 20_000_000, None, part.schedule_offset_ns or 0)
        while (due := schedule.next()) is not None:
            dues.append(due)
    assert sorted(dues) == [k * 1_000_000 for k in range(20)]  # one a ms, none twice, none past the end
    assert [p.schedule_offset_ns for p in split(spec.but(rate_per_s=None, calls=100, duration_s=None), 4)] == [None] * 4
    poisson = [Schedule(250.0, "poisson", 0, 3, 10**12, None, shift) for shift in (0, 1_000_000)]
    gaps = [[s.next() for _ in range(3)] for s in poisson]
    assert [b - 1_000_000 for b in gaps[1]] != gaps[0]  # drawn apart, not one draw shifted
