"""Each cell over time: the intervals every driver keeps, merged by start, and what they show.

The servers are real HTTP servers in this test process on ephemeral ports; `rpcarena target`
measures them with the Python drivers (several processes, several clients each).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from hdrh.log import HistogramLogReader

from rpcarena import report
from rpcarena.analysis import gate
from rpcarena.errors import UsageError
from rpcarena.orchestration.live import LiveSeries
from rpcarena.record import hist, intervals
from rpcarena.record.intervals import LiveInterval
from rpcarena.results import Cell, load
from tests.conftest import cli
from tests.helpers.http_server import QuietHTTPServer

pytestmark = pytest.mark.serial  # timing-sensitive: a stall must fall in its interval

QUIET_S = 0.5  # the gap before the measured phase: the driver process starting after the probe
STALL_AT_S, STALL_S = 1.4, 0.3


class Stalling(BaseHTTPRequestHandler):
    """GET -> {"ok": true} after `delay_s`; once, STALL_AT_S into the first run of calls after a quiet
    gap (the measured phase, with no warm-up), the reply waits STALL_S more."""

    protocol_version = "HTTP/1.1"
    delay_s = 0.0
    lock = threading.Lock()
    last = first = 0.0
    stalled = False

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        time.sleep(self.delay_s + self._stall())
        data = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stall(self) -> float:
        with self.lock:
            now, cls = time.monotonic(), type(self)
            if now - cls.last > QUIET_S:
                cls.first = now
            cls.last = now
            if cls.stalled or now - cls.first < STALL_AT_S:
                return 0.0
            cls.stalled = True
            return STALL_S

    def log_message(self, *args: object) -> None:
        pass


def _serve(delay_s: float):
    handler = type("Handler", (Stalling,), {"delay_s": delay_s, "last": 0.0, "first": 0.0, "stalled": False})
    server = QuietHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


@pytest.fixture
def stalling():
    server, handler = _serve(0.002)
    yield f"http://127.0.0.1:{server.server_address[1]}/ok", handler
    server.shutdown()
    server.server_close()


def _target(url: str, out, *args: str):
    done = cli("target", "--http", url, "--expect-status", "200", "--warmup", "0s", "--out", str(out),
               *args)
    assert "Traceback" not in done.stderr
    return done


def test_a_stall_shows_in_its_interval_and_every_call_is_in_one(stalling, tmp_path):
    url, handler = stalling
    done = _target(url, tmp_path / "t.json", "--duration", "3s", "--clients", "1")
    assert done.returncode == 0, done.stderr
    (cell,) = load(tmp_path / "t.json").cells
    assert handler.stalled and cell.interval_s == 1.0
    assert [item["start_s"] for item in cell.intervals] == [0.0, 1.0, 2.0]
    # the server read at each interval's end too (the moment after the phase's end in the last one);
    # a target's memory is read with --server-pid only (the Java test below reads a server's)
    assert [item["start_s"] for item in cell.server_intervals] == [0.0, 1.0, 2.0]
    if cell.wire_in_bytes is not None:  # counted where nft runs as root: each interval's share adds up
        assert sum(item["wire_in_bytes"] for item in cell.server_intervals) <= cell.wire_in_bytes
        assert all(item["wire_in_bytes"] > 0 for item in cell.server_intervals)
    assert intervals.total_calls(cell.intervals) == cell.calls
    worst_ms = [hist.decode(item["histogram"]).get_max_value() / 1e6 for item in cell.intervals]
    # the stall is timed from the server's view of the phase's start, which a loaded machine can
    # shift by an interval: what must hold is that it shows in exactly the interval it fell in
    stalled = [worst >= STALL_S * 1000 for worst in worst_ms]
    assert stalled.count(True) == 1, worst_ms
    hlog = tmp_path / "t.hlog"  # and so HdrHistogram's own log reader sees it, a second at a time
    done = cli("export", str(tmp_path / "t.json"), "--hlog", str(hlog), "--intervals", str(tmp_path / "t.csv"))
    assert done.returncode == 0, done.stderr
    table = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert [(row["start_s"], int(row["calls"])) for row in table] == [
        (f"{i['start_s']:.1f}", i["calls"]) for i in cell.intervals]
    assert [float(row["max_us"]) >= STALL_S * 1e6 for row in table] == stalled
    frame = load(tmp_path / "t.json").intervals_frame()
    assert list(frame["calls"]) == [i["calls"] for i in cell.intervals] and frame["p99_us"].notna().all()
    assert [row["wire_out_bytes"] for row in table] == [str(i["wire_out_bytes"] or "") for i in cell.server_intervals]
    page = report.write_html([report.Source("t", load(tmp_path / "t.json"))], tmp_path / "t.html").read_text()
    assert page.count("over time: each cell") == 1
    reader = HistogramLogReader(str(hlog), hist.new())
    read = [reader.get_next_interval_histogram() for _ in range(4)]
    assert read[3] is None and [h.get_total_count() for h in read[:3]] == [i["calls"] for i in cell.intervals]
    assert [h.get_max_value() >= STALL_S * 1e9 for h in read[:3]] == stalled


def test_intervals_of_several_driver_processes_add_up(stalling, tmp_path):
    url, _ = stalling
    done = _target(url, tmp_path / "t.json", "--duration", "1500ms", "--clients", "3", "--interval", "500ms")
    assert done.returncode == 0, done.stderr
    (cell,) = load(tmp_path / "t.json").cells
    assert cell.client_processes == 3 and cell.interval_s == 0.5
    assert [item["start_s"] for item in cell.intervals] == [0.0, 0.5, 1.0]
    assert intervals.total_calls(cell.intervals) == cell.calls > 0


def _on_a_terminal(*args: str, timeout_s: float = 180) -> str:
    """`rpcarena ARGS` with its output on a pseudo-terminal, as a person at a terminal sees it."""
    leader, follower = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "rpcarena", *args], stdin=subprocess.DEVNULL, stdout=follower,
                            stderr=follower, env=dict(os.environ, COLUMNS="200", TERM="xterm"))
    os.close(follower)
    seen, deadline = b"", time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if select.select([leader], [], [], 1.0)[0]:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the terminal closed: the run ended
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(leader)
    assert proc.wait(timeout=30) == 0, seen.decode(errors="replace")[-2000:]
    return seen.decode(errors="replace")


def test_the_live_line_shows_the_running_cells_intervals_on_a_terminal_only(stalling, tmp_path):
    url, _ = stalling
    args = ("target", "--http", url, "--expect-status", "200", "--warmup", "0s", "--duration", "3s",
            "--clients", "2", "--out")
    seen = _on_a_terminal(*args, str(tmp_path / "tty.json"))
    told = re.findall(r"now: ([\d,]+) calls/s, p99 [\d.]+ [µm]?s, 0 errors \(at (\d)s\)", seen)
    assert {at for _, at in told} >= {"0", "1"}, seen[-2000:]  # the last interval is told by the result
    assert all(int(rate.replace(",", "")) > 0 for rate, _ in told)
    piped = _target(url, tmp_path / "pipe.json", "--duration", "1s", "--clients", "2")
    assert piped.returncode == 0 and "now:" not in piped.stderr + piped.stdout


def test_the_live_series_sums_clients_by_start_and_tells_each_interval_once():
    told: list[LiveInterval] = []
    live = LiveSeries(0.5, told.append)

    def line(start_s: float, calls: int, us: int, errors: int = 0) -> dict:
        h = hist.new()
        h.record_value(us * 1000, calls)
        return {"event": "interval", **intervals.entry(start_s, h, {"timeout": errors})}
    for item in (line(0.0, 10, 100), line(0.0, 30, 900, errors=2), line(0.5, 5, 100), line(0.0, 99, 5000)):
        live.add(item)
    assert len(told) == 1  # the interval at 0.5 is still open; the late line for 0.0 is left out
    assert told[0].start_s == 0.0 and told[0].calls_per_s == (40 + 2) / 0.5 and told[0].errors == 2
    assert 890 <= told[0].p99_us <= 910
    told.clear()  # knowing its 2 clients, an interval is told once both said it, not an interval later
    live = LiveSeries(0.5, told.append, clients=2)
    for item in (line(0.0, 10, 100), line(0.0, 30, 900), line(0.0, 99, 5000), line(0.5, 5, 100)):
        live.add(item)
    assert [(t.start_s, t.calls) for t in told] == [(0.0, 40)]
    live.add(line(1.0, 7, 100))  # a client that said nothing at 0.5: told when a later one begins
    assert [(t.start_s, t.calls) for t in told] == [(0.0, 40), (0.5, 5)]


@pytest.mark.parametrize("client", ["go", "rust"])
def test_a_native_target_driver_keeps_intervals_too(client, stalling, tmp_path):
    url, _ = stalling
    done = _target(url, tmp_path / "t.json", "--client", client, "--duration", "1500ms", "--clients", "2",
                   "--interval", "500ms")
    assert done.returncode == 0, done.stderr
    (cell,) = load(tmp_path / "t.json").cells
    assert [item["start_s"] for item in cell.intervals] == [0.0, 0.5, 1.0]
    assert intervals.total_calls(cell.intervals) == cell.calls > 0


def test_the_java_driver_keeps_intervals_of_a_contender_cell(tmp_path):
    done = cli("run", "--contender", "tcp-raw", "--client", "java", "--workload", "usp.int32",
               "--duration", "1500ms", "--warmup", "0s", "--warmup-max", "0", "--clients", "2",
               "--interval", "500ms",
               "--out", str(tmp_path / "r.json"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    results = load(tmp_path / "r.json")
    (cell,) = results.cells
    assert [item["start_s"] for item in cell.intervals] == [0.0, 0.5, 1.0]
    assert intervals.total_calls(cell.intervals) == cell.calls > 0
    # the server's memory read at each interval's end, beside the calls in the per-interval table
    assert [item["start_s"] for item in cell.server_intervals] == [0.0, 0.5, 1.0]
    assert [row["server_rss_bytes"] > 0 for row in results.interval_rows()] == [True] * 3


@pytest.fixture
def slow():
    server, _ = _serve(0.010)
    yield f"http://127.0.0.1:{server.server_address[1]}/ok"
    server.shutdown()
    server.server_close()


def test_a_failed_threshold_exits_3_naming_the_cell_and_its_value(slow, tmp_path):
    done = _target(slow, tmp_path / "t.json", "--calls", "30", "--name", "slow",
                   "--threshold", "p99<1ms", "--threshold", "errors<1%")
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "1 threshold(s) failed" in line and "slow<-py" in line and "p99 " in line and "not <1ms" in line, line
    assert load(tmp_path / "t.json").cells[0].calls == 30  # the results are kept


def test_an_aborting_threshold_stops_the_run_at_the_first_failing_interval(slow, tmp_path):
    done = _target(slow, tmp_path / "t.json", "--duration", "60s", "--interval", "500ms", "--name", "slow",
                   "--threshold", "p99<1ms:abort", "--threshold", "errors<1%")
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert "the run stopped: p99 " in line and "in the interval at 0s, not <1ms (--threshold 'p99<1ms:abort')" in line
    kept = load(tmp_path / "t.json")
    assert kept.interrupted == "--threshold abort" and kept.cells == []  # the stopped cell was not measured whole


def test_an_aborting_threshold_judges_each_interval_of_its_statistic():
    (term, calls) = gate.parse("p99<5ms:abort"), gate.parse("calls/s>100:abort")
    assert term.abort and term.text == "p99<5ms:abort" and not gate.parse("p99<5ms").abort
    quick = LiveInterval(2.0, 500.0, 900.0, 0, 250, {"p99_us": 900.0})
    slow = LiveInterval(3.0, 50.0, 12_000.0, 0, 25, {"p99_us": 12_000.0})
    assert gate.failed_interval([term, calls], quick) is None
    said = gate.failed_interval([term], slow)
    assert said == "p99 12ms in the interval at 3s, not <5ms (--threshold 'p99<5ms:abort')"
    assert gate.failed_interval([gate.parse("p99<5ms")], slow) is None  # judged per cell only
    with pytest.raises(UsageError):
        gate.parse("p99<5:abort")


def test_met_thresholds_exit_0(slow, tmp_path):
    done = _target(slow, tmp_path / "t.json", "--calls", "20", "--threshold", "p99<5s", "--threshold", "errors<=0%",
                   "--threshold", "calls/s>1")
    assert done.returncode == 0, done.stderr


def test_a_threshold_without_its_unit_is_a_usage_error_before_anything_starts(tmp_path):
    done = cli("target", "--debug-mode", "--http", "http://127.0.0.1:9/ok", "--threshold", "p99<1",
               "--out", str(tmp_path / "t.json"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "error: bad --threshold 'p99<1'" in done.stderr.strip().splitlines()[-1], done.stderr
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("term", ["errors<0.1", "calls/s<5", "calls/s>0", "p99>1ms", "p99<1ms,mean<1ms", "latency<1ms",
                                  "errors<200%", "p99<0ms", "p0<1ms"])
def test_a_threshold_without_its_unit_or_sense_is_refused(term):
    with pytest.raises(UsageError, match=f"^bad --threshold {re.escape(repr(term))}: "):
        gate.parse(term)


def test_thresholds_judge_each_measured_cell():
    terms = [gate.parse(t) for t in ("p99<=20ms", "errors<1%", "calls/s>=100")]
    fast, slow = _cell(latency_ns=1_000_000, errors=0), _cell(latency_ns=30_000_000, errors=5)
    skipped = dataclasses.replace(_cell(latency_ns=30_000_000, errors=0), status="unsupported")
    failed = gate.failures([fast, slow, skipped], terms)
    assert [line.split(": ")[1].split(" ")[0] for line in failed] == ["p99", "errors"]
    assert all(line.startswith("c<-py w x1 trial 1: ") for line in failed), failed
    assert "errors 4.762%, not <1.000%" in failed[1]


def _cell(latency_ns: int, errors: int) -> Cell:
    histogram = hist.new()
    for _ in range(100):
        histogram.record_value(latency_ns)
    return Cell("c", "py", "w", "M", 1, calls=100, errors={"timeout": errors} if errors else {}, wall_s=0.5,
                latency_histogram=hist.encode(histogram))
