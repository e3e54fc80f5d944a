"""Every path, URL, number and document checked before anything is measured: one line, exit 2.

Run in-process through `rpcarena.cli.main` with the measuring stubbed out, so no server starts:
a check that lets nonsense through reaches the stub and fails the test; a traceback escapes
`main` and fails it too. A property-based test (Hypothesis) throws random option values and
random documents at run, target, report, compare and export.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import signal
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rpcarena.cli import main
from rpcarena.errors import UsageError
from rpcarena.record import hist
from rpcarena.results import Results
from rpcarena.targets import template
from tests.conftest import FIXTURE, ROOT

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Measured(Exception):
    """Raised by the stubs: the command got past its checks to measuring."""


def _stub_measuring(monkeypatch: pytest.MonkeyPatch, allow: bool = False) -> None:
    def measuring(config, *args, **kwargs):
        if not allow:
            raise Measured(config)
        return Results(config=config.to_json(), path=Path(config.out))

    def offline(*args, **kwargs):
        raise UsageError("offline: this test makes no connection")

    for name in ("run_arena", "find_max_arena"):
        monkeypatch.setattr(f"rpcarena.commands.run.{name}", measuring)
        monkeypatch.setattr(f"rpcarena.commands.target.{name}", measuring)
    monkeypatch.setattr("rpcarena.target_runner.native.python_probe", offline)
    monkeypatch.setattr("rpcarena.targets.build.reachable", offline)
    monkeypatch.setattr("rpcarena.targets.protos.from_reflection", offline)


def call(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """`rpcarena ARGV` in this process: (exit code, stderr); signal handlers restored after."""
    handlers = {sig: signal.getsignal(sig) for sig in SIGNALS}
    try:
        code = main(argv)
    except SystemExit as error:
        code = error.code if isinstance(error.code, int) else 2
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return code, capsys.readouterr().err


def one_line(code: int, err: str, needle: str = "") -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, (code, err)
    assert "Traceback" not in err and needle in lines[0], lines
    return lines[0]


RUN = ["run", "--contender", "tcp-raw", "--workload", "usp.void"]


@pytest.mark.parametrize("args,needle", [
    (["--out", ""], "--out"),
    (["--rate", "nan"], "--rate"),
    (["--rate", "inf"], "--rate"),
    (["--samples", "0"], "--samples"),
    (["--cell-timeout", "0"], "--cell-timeout"),
    (["--slo", "p99<5ms"], "--find-max"),
    (["--duration", "-5s"], "--duration"),
    (["--warmup", "-1s"], "--warmup"),
    (["--host", "not-an-ip"], "--host"),
    (["--clients", str(10**20)], "--clients"),
    (["--calls", str(10**20)], "--calls"),
    (["--calls", "many"], "--calls"),
    (["--repeat", str(10**9)], "--repeat"),
    (["--redis", "garbage"], "--redis"),
    (["--redis", "redis://127.0.0.1:99999/0"], "--redis"),
    (["--report", "/proc/x.html"], "--report"),
    (["--resume", "/nonexistent/r.json"], "--resume"),
    (["--contender", ""], "--contender"),  # the drill's: each measured 0 cells and exited 0
    (["--contender", ",,,"], "--contender"),
    (["--workload", ","], "--workload"),
    (["-c", "1,,2"], "--clients"),
    (["--link", "rtt=5ms,rtt=6ms"], "rtt is given twice"),  # refused before the delay line starts
])
def test_nonsense_is_refused_before_measuring(args, needle, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    one_line(*call([*RUN, "--out", str(tmp_path / "r.json"), *args], capsys), needle)


@pytest.mark.parametrize("out", ["{tmp}", "{tmp}/file.json/x", "/proc/x.json", "/proc/self/x/r.json"])
def test_an_out_that_cannot_be_written_is_refused_before_measuring(out, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    (tmp_path / "file.json").write_text("{}")
    one_line(*call([*RUN, "--out", out.format(tmp=tmp_path)], capsys), "--out")


def test_a_huge_var_range_is_not_built(capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    code, err = call(["target", "--http", "http://127.0.0.1:9/x/{{w}}", "--var", "w=range:1:100000000000"], capsys)
    assert "offline" in one_line(code, err)  # built, checked, then stopped at the (stubbed) probe


def _doc() -> dict:
    return json.loads(FIXTURE.read_text())


def _broken(change) -> dict:
    doc = _doc()
    change(doc)
    return doc


BROKEN = {
    "cells not a list": lambda d: d.update(cells={"a": 1}),
    "a cell not an object": lambda d: d["cells"].append(3),
    "a cell missing fields": lambda d: d["cells"][0].pop("contender"),
    "a bad histogram": lambda d: d["cells"][0].update(latency_histogram="!!not base64"),
    "calls many": lambda d: d["cells"][0].update(calls="many"),
    "environment x": lambda d: d.update(environment="x"),
    "config a list": lambda d: d.update(config=[1]),
    "samples not pairs": lambda d: d["cells"][0].update(samples_ns=[[1]]),
    "errors not counts": lambda d: d["cells"][0].update(errors={"timeout": "x"}),
}
READERS = {"report": lambda p, t: ["report", p, "--out", str(t / "o.html")], "compare": lambda p, t: ["compare", p, p],
           "export": lambda p, t: ["export", p, "--csv", str(t / "o.csv")]}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("broken", BROKEN)
def test_a_malformed_document_is_one_line(reader, broken, tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_broken(BROKEN[broken])))
    one_line(*call(READERS[reader](str(path), tmp_path), capsys), str(path))


@pytest.mark.parametrize("reader", READERS)
def test_an_empty_path_or_a_folder_is_one_line(reader, tmp_path, capsys):
    for path in ("", str(tmp_path)):
        one_line(*call(READERS[reader](path, tmp_path), capsys))


def test_an_output_that_cannot_be_written_is_one_line(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_doc()))
    one_line(*call(["export", str(path), "--csv", "/proc/x.csv"], capsys), "/proc/x.csv")


# The property: whatever the values, one line and exit 2, or a clean exit 0; never a traceback.

VALUES = st.one_of(
    st.sampled_from(["", "0", "-1", "-5s", "nan", "inf", "-inf", "1e999", str(10**20), "10^20", "1,2", "a,b",
                     "0.5s", "2m", "garbage", "/proc/x", "redis://", "::1", "p99<5ms", "range:1:9", "usp.*"]),
    st.text(max_size=12), st.integers(-10**25, 10**25).map(str))
RUN_OPTIONS = ["--clients", "--calls", "--duration", "--warmup", "--repeat", "--pin", "--timeout", "--cell-timeout",
               "--samples", "--rate", "--arrival", "--slo", "--host", "--port", "--redis", "--via", "--link",
               "--contender", "--workload", "--client"]
FLAGS = ["--find-max", "--fail-fast", "--force"]
TARGET_OPTIONS = ["--grpc", "--http", "--rpyc", "--name", "--method", "--data", "--http-method", "--body",
                  "--rpyc-method", "--args", "--expect-status", "--server-pid", "--var", "--header", "--expect-json",
                  "--clients", "--calls", "--rate", "--vars-limit", "--timeout", "--duration"]


def _argv(options: list[str]):
    pairs = st.lists(st.tuples(st.sampled_from(options), VALUES), max_size=4)
    return st.tuples(pairs, st.lists(st.sampled_from(FLAGS), max_size=2, unique=True))


def _assert_clean(code: int, err: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert (code == 0 and not lines) or (code == 2 and len(lines) == 1), (code, err)


PROPERTY = settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@PROPERTY
@given(_argv(RUN_OPTIONS))
def test_run_options_are_one_line_or_accepted(tmp_path, capsys, argv):
    pairs, flags = argv
    with pytest.MonkeyPatch.context() as patch:
        _stub_measuring(patch, allow=True)
        patch.chdir(tmp_path)
        args = [part for pair in pairs for part in pair]
        _assert_clean(*call(["run", *args, *flags, "--force", "--out", str(tmp_path / "r.json")], capsys))


@PROPERTY
@given(_argv(TARGET_OPTIONS))
def test_target_options_are_one_line_or_accepted(tmp_path, capsys, argv):
    pairs, flags = argv
    with pytest.MonkeyPatch.context() as patch:
        _stub_measuring(patch, allow=True)
        patch.chdir(tmp_path)
        args = [part for pair in pairs for part in pair]
        _assert_clean(*call(["target", *args, *flags[:1], "--out", str(tmp_path / "t.json")], capsys))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)


@st.composite
def documents(draw) -> object:
    """A results document with random damage: a value replaced, a key dropped, or anything at all."""
    doc = copy.deepcopy(_doc())
    how = draw(st.sampled_from(["top", "cell", "drop", "anything"]))
    if how == "anything":
        return draw(JSON)
    if how == "drop":
        cell = doc["cells"][draw(st.integers(0, len(doc["cells"]) - 1))]
        cell.pop(draw(st.sampled_from(sorted(cell))))
        return doc
    target = doc if how == "top" else doc["cells"][draw(st.integers(0, len(doc["cells"]) - 1))]
    target[draw(st.sampled_from(sorted(target)))] = draw(JSON)
    return doc


@settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(documents(), st.sampled_from(sorted(READERS)))
def test_any_document_is_read_or_refused_in_one_line(tmp_path, capsys, doc, reader):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc, allow_nan=True))
    _assert_clean(*call(READERS[reader](str(path), tmp_path), capsys))


DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000
DEEP_LIST = "[" * 5000 + "]" * 5000
PROTO = str(ROOT / "proto" / "arena.proto")


@pytest.mark.parametrize("argv,needle", [
    (["--http", "http://[::1/"], "--http"),  # was a ValueError
    (["http://127.0.0.1:0/x"], "port 0"),  # was port 80
    (["--http", "http://[::1]:0/x"], "port 0"),
    (["--grpc", "127.0.0.1:9", "--method", "arena.Arena/SayHello", "--proto", PROTO, "--data", DEEP_OBJECT],
     "nests deeper"),  # was a RecursionError
    (["--rpyc", "127.0.0.1:9", "--rpyc-method", "m", "--args", DEEP_LIST], "nests deeper"),
    (["--http", "http://127.0.0.1:9/x", "--expect-json", f"a={DEEP_LIST}"], "nests deeper"),
    (["--http", "http://127.0.0.1:9/{{i}}", "--var", "i=csv:{binary}:x"], "UTF-8"),  # was a UnicodeDecodeError
    (["--http", "http://127.0.0.1:9/x", "--data-file", "/dev/zero"], "device"),  # was a MemoryError, then a device
    (["--http", "http://127.0.0.1:9/x", "--data-file", "{deep}"], "nests deeper"),
])
def test_target_input_that_raised_is_one_line(argv, needle, tmp_path, capsys, monkeypatch):
    _stub_measuring(monkeypatch)
    (tmp_path / "binary.csv").write_bytes(b"x\n\xd0\xff\x00\n")
    (tmp_path / "deep.json").write_text(DEEP_OBJECT)
    files = {"{binary}": str(tmp_path / "binary.csv"), "{deep}": str(tmp_path / "deep.json")}
    args = [a.replace("{binary}", files["{binary}"]).replace("{deep}", files["{deep}"]) for a in argv]
    one_line(*call(["target", *args, "--out", str(tmp_path / "t.json")], capsys), needle)


def test_a_document_without_end_is_refused_without_reading_it_whole(tmp_path, capsys):
    """`compare base.json /dev/zero` read until the OOM killer came; a FIFO is not opened at all (its
    open would wait for a writer: issue 42's drill)."""
    one_line(*call(["compare", str(FIXTURE), "/dev/zero"], capsys), "/dev/zero")
    fifo = tmp_path / "endless.json"
    os.mkfifo(fifo)
    one_line(*call(["compare", str(FIXTURE), str(fifo)], capsys), "FIFO")


def _bomb(inflated_bytes: int) -> str:
    """A histogram whose zlib stream inflates to `inflated_bytes` (header as ours, then zeros)."""
    raw = base64.b64decode(hist.encode(hist.new()))
    header = zlib.decompress(raw[8:])[:40]
    stream = zlib.compress(header + bytes(inflated_bytes), 9)
    return base64.b64encode(raw[:4] + struct.pack(">I", len(stream)) + stream).decode()


@pytest.mark.parametrize("reader", [*READERS, "show"])
def test_a_compressed_histogram_bomb_is_refused_in_one_line(reader, tmp_path, capsys):
    doc = _doc()
    doc["cells"][0]["latency_histogram"] = _bomb(16 * hist.MAX_DECODED_BYTES)
    path = tmp_path / "bomb.json"
    path.write_text(json.dumps(doc))
    argv = ["show", str(path)] if reader == "show" else READERS[reader](str(path), tmp_path)
    one_line(*call(argv, capsys), "inflates past 1 MiB")


def test_the_fullest_histogram_of_ours_is_within_the_decoding_bound():
    """Every bucket from 1 ns to 60 s recorded, each a different count of 2**44 calls or more (a cell
    holds at most 10**9 calls: ~2**30), so that neither varints nor zlib make the payload any smaller."""
    full, value, bucket = hist.new(), hist.LOWEST_NS, 0
    while value <= hist.HIGHEST_NS:
        full.record_value(value, 2**44 + bucket * 7919)
        value, bucket = full.get_highest_equivalent_value(value) + 1, bucket + 1
    encoded = hist.encode(full)
    assert len(zlib.decompress(base64.b64decode(encoded)[8:])) < hist.MAX_DECODED_BYTES
    assert hist.decode(encoded).get_total_count() == full.get_total_count()


def test_a_csv_column_is_read_and_a_binary_file_refused(tmp_path):
    good, bad = tmp_path / "ids.csv", tmp_path / "ids.bin"
    good.write_text('id,name\r\n7,"a, b"\r\n8,c\r\n')
    bad.write_bytes(b"id\n\xd0\xff\n")
    assert template.parse_var(f"i=csv:{good}:id").values == ("7", "8")
    assert template.parse_var(f"n=csv:{good}:name").values == ("a, b", "c")
    with pytest.raises(UsageError, match="UTF-8"):
        template.parse_var(f"i=csv:{bad}:id")
