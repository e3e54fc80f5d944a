"""Exports for other tools, from a real small run (tests/fixtures): HdrHistogram's .hgrm and .hlog,
read back by the hdrh library, and pyperf suites that pyperf itself compares and plots."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys

import pytest
from hdrh.log import HistogramLogReader

import rpcarena
from rpcarena.record import hist
from rpcarena.report import interop
from tests.conftest import cli
from tests.helpers import FIXTURE

ROW = re.compile(r"^ *\d+\.\d{3} [01]\.\d{12} +\d+( +\d+\.\d\d)?$")


@pytest.fixture(scope="module")
def doc() -> rpcarena.Results:
    return rpcarena.load(FIXTURE)


def test_a_streams_messages_get_their_own_hgrm(doc, tmp_path):
    stream = dataclasses.replace(doc.cells[0], messages=900, message_latency_histogram=doc.cells[1].latency_histogram)
    written = interop.write_hgrm(rpcarena.Results(cells=[stream]), tmp_path)
    assert sorted(p.name for p in written) == ["tcp-raw-usp.int32-x1-trial-1.hgrm",
                                               "tcp-raw-usp.int32-x1-trial-1.messages.hgrm"]
    total = f"Total count    = {doc.cells[1].histogram.get_total_count():12d}"
    assert total in (tmp_path / "tcp-raw-usp.int32-x1-trial-1.messages.hgrm").read_text()


def test_hgrm_is_what_hdrhistogram_prints(doc, tmp_path):
    written = interop.write_hgrm(doc, tmp_path)
    assert len(written) == 8 and len({p.name for p in written}) == 8
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.hgrm", p.name) for p in written)
    cell = doc.cells[0]
    text = (tmp_path / "tcp-raw-usp.int32-x1-trial-1.hgrm").read_text()
    lines = text.splitlines()
    assert lines[0] == "       Value     Percentile TotalCount 1/(1-Percentile)" and lines[1] == ""
    body = lines[2:-3]
    assert all(ROW.match(line) for line in body), [line for line in body if not ROW.match(line)]
    widths = 12 + 1 + 14 + 1 + 10  # Value, Percentile, TotalCount; then 1/(1-Percentile), but not at 100%
    assert {len(line) for line in body[:-1]} == {widths + 1 + 14} and len(body[-1]) == widths
    reference = io.BytesIO()  # the hdrh library's port of the same Java method prints the same rows
    cell.histogram.output_percentile_distribution(reference, interop.NS_PER_MS)
    assert body == reference.getvalue().decode().splitlines()[2:-3]
    assert body[-1].split()[1:] == ["1.000000000000", "300"]
    summary = hist.summary_us(cell.histogram)
    mean, sd = summary["mean_us"] / 1e3, summary["sd_us"] / 1e3
    assert lines[-3] == f"#[Mean    = {mean:12.3f}, StdDeviation   = {sd:12.3f}]"
    assert lines[-2] == f"#[Max     = {cell.histogram.get_max_value() / 1e6:12.3f}, Total count    = {300:12d}]"
    assert re.fullmatch(r"#\[Buckets = +\d+, SubBuckets     = +2048\]", lines[-1])


def test_hlog_reads_back_with_hdrhistogram(doc, tmp_path):
    path = interop.write_text(interop.interval_log(doc), tmp_path / "run.hlog")
    lines = path.read_text().splitlines()
    assert lines[1] == "#[Histogram log format version 1.3]" and lines[2].startswith("#[StartTime: 1795335556.000 ")
    assert lines[3] == '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'
    intervals = lines[4:]
    assert [line.split(",")[0] for line in intervals] == [f"Tag={interop.tag(interop.identity(c))}" for c in doc.cells]
    assert all(" " not in line for line in intervals)  # a tag holds no space or comma
    reader = HistogramLogReader(str(path), hist.new())
    for cell in doc.cells:
        back = reader.get_next_interval_histogram()
        assert back is not None and back.get_total_count() == cell.calls
        assert back.get_value_at_percentile(99) == cell.histogram.get_value_at_percentile(99)
    assert reader.get_next_interval_histogram() is None
    starts = [float(line.split(",")[1]) for line in intervals]
    assert starts == sorted(starts) and starts[0] == 0.0 and starts[-1] == 12.0  # 08:19:16 .. 08:19:28


def slowed(doc: rpcarena.Results, factor: float) -> rpcarena.Results:
    return dataclasses.replace(doc, cells=[c.slowed(factor) for c in doc.cells], path=None)


def pyperf(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyperf", *args], capture_output=True, text=True, timeout=120)


def test_pyperf_compares_and_plots_two_exports(doc, tmp_path):
    a = interop.write_text(interop.pyperf_json(doc), tmp_path / "a.json")
    b = interop.write_text(interop.pyperf_json(slowed(doc, 1.5)), tmp_path / "b.json")
    done = pyperf("compare_to", str(a), str(b))
    assert done.returncode == 0, done.stderr
    for name in ("tcp-raw usp.int32 x1", "tcp-raw usp.int32 x2", "grpc-py usp.int32 x1", "grpc-py usp.int32 x2"):
        assert re.search(rf"^{re.escape(name)}: .*: 1\.50x slower$", done.stdout, re.M), done.stdout
    shown = pyperf("hist", str(a))
    assert shown.returncode == 0 and "grpc-py usp.int32 x2" in shown.stdout and "#" in shown.stdout


def test_pyperf_runs_are_trials_and_values_are_calls(doc):
    import pyperf as pp

    suite = pp.BenchmarkSuite.loads(interop.pyperf_json(doc))
    bench = suite.get_benchmark("grpc-py usp.int32 x1")
    assert bench.get_nrun() == 2 and bench.get_nvalue() == 600 and bench.get_unit() == "second"
    assert bench.get_metadata()["cpu_model_name"] == doc.environment["cpu_model"]
    assert bench.median() == pytest.approx(sorted(ns for c in doc.cells[4:6] for _, ns in c.samples_ns)[299] / 1e9,
                                           rel=0.01)


def test_pyperf_values_from_the_histogram_when_no_samples_were_kept(doc):
    bare = dataclasses.replace(doc, cells=[dataclasses.replace(c, samples_ns=[]) for c in doc.cells])
    suite = json.loads(interop.pyperf_json(bare))
    (run, _) = suite["benchmarks"][0]["runs"]
    assert len(run["values"]) == 300
    median = sorted(run["values"])[150] * 1e9
    assert median == pytest.approx(doc.cells[0].histogram.get_value_at_percentile(50), rel=0.01)


def test_export_cli_writes_each_format(tmp_path):
    done = cli("export", str(FIXTURE), "--hgrm", str(tmp_path / "hgrm"), "--hlog", str(tmp_path / "r.hlog"),
               "--pyperf", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "hgrm").glob("*.hgrm"))) == 8
    assert (tmp_path / "r.hlog").read_text().count("\nTag=") == 8
    assert len(json.loads((tmp_path / "r.json").read_text())["benchmarks"]) == 4
    to_stdout = cli("export", str(FIXTURE), "--pyperf", "-")
    assert to_stdout.returncode == 0 and json.loads(to_stdout.stdout)["version"] == "1.0"


def test_export_cli_writes_one_output_at_most_on_stdout():
    done = cli("export", str(FIXTURE), "--hlog", "-", "--pyperf", "-")
    assert done.returncode == 2 and "two outputs to stdout" in done.stderr, done.stderr
    alone = cli("export", str(FIXTURE), "--hlog", "-")  # the histograms alone: no CSV beside them
    assert alone.returncode == 0 and alone.stdout.count("\nTag=") == 8 and "contender," not in alone.stdout
