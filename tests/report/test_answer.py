"""The answer first: the post-run summary at 100 columns, its warnings, `show`, the exports, the conventions.

None measures: a run's answer is printed over made-up cells (`--debug-mode`); the rest read
documents whose answer is known (`trials`). A real run's answer is in tests/e2e/test_arena.py.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re

import pytest
from rich.console import Console

import rpcarena
from rpcarena import cli as rpcarena_cli
from rpcarena import report
from rpcarena.commands import COMMANDS, run
from rpcarena.config import RunConfig
from rpcarena.orchestration.arena import Arena
from rpcarena.report import answer, terminal
from rpcarena.report.progress import CellProgress
from tests.conftest import FIXTURE, FakeCells, cli, document, fake_context, fake_plans, trials

WIDTH = 100


def narrow() -> dict[str, str]:
    return dict(os.environ, COLUMNS=str(WIDTH))


def flat(text: str) -> str:
    """Text with its line wrapping undone, to find a sentence the terminal wrapped."""
    return " ".join(text.split())


def assert_fits(out: str) -> None:
    assert "…" not in out and "..." not in out, out
    assert max(len(line) for line in out.splitlines()) <= WIDTH, out


def assert_every_number_shown(doc: rpcarena.Results, out: str) -> None:
    """Each ranked contender's row, every cell of it, is in the output as the summary formats it."""
    rankings = answer.rankings(doc)
    assert rankings
    errors = any(e.errors for r in rankings for e in r.entries)
    for ranking in rankings:
        assert ranking.title() in out
        for rank, entry in enumerate(ranking.entries, 1):
            cells = terminal.summary_cells(entry, rank, errors)
            line = next((ln for ln in out.splitlines() if ln.split()[:2] == [str(rank), entry.name]), "")
            assert all(cell in line for cell in cells[1:5]), (cells, line)
            assert cells[-1].split()[0] in line, (cells, line)  # the ratio, its interval possibly wrapped
            assert cells[-1] in flat(out), cells


def test_a_small_run_prints_every_number_of_its_answer_at_100_columns(tmp_path):
    out = tmp_path / "r.json"
    done = cli("run", "--debug-mode", "--contender", "tcp-raw,grpc-py,rpyc-nodelay", "--workload", "usp.int32",
               "-n", "300", "--warmup", "0.2s", "-o", str(out), env=narrow())
    assert done.returncode == 0, done.stderr
    assert_fits(done.stdout)
    doc = rpcarena.load(out)
    assert_every_number_shown(doc, done.stdout)
    assert "★ best" in done.stdout and "(cannot tell)" in done.stdout
    assert re.search(r"^floor: tcp-raw [\d.]+ µs", done.stdout, re.M)  # the reference, not ranked
    assert "with 1 trial a ratio cannot be called significant" in flat(done.stdout)
    assert "p99 n/s: fewer than 1,000 calls" in flat(done.stdout)  # 300 calls: p99 not shown
    for unit in ("µs", "/s"):
        assert unit in done.stdout
    # stderr is not a terminal: a plain line per cell, then the final line that stays
    assert re.search(r"cell 1/4 tcp-raw.*: ok, 300 calls, [\d,]+ calls/s, 0 errors \(.*ETA", done.stderr)
    assert re.search(r"4 of 4 cells in \d+:\d\d \(4 ok\)", done.stderr), done.stderr  # the floor measured twice
    again = cli("show", str(out), env=narrow())
    assert again.returncode == 0 and again.stdout.split("results:")[0] == done.stdout.split("results:")[0]


def test_nagle_stalls_are_named_in_the_terminal_with_their_fix(tmp_path):
    """A cell whose calls wait on the server's delayed ACK (~40 ms each, as rpyc's list arguments do:
    benchmarks/timing_claims.py measures it) and whose client has no TCP_NODELAY."""
    stalled = dataclasses.replace(trials("rpyc", "usp.distance", noise=(1.0,))[0],
                                  tcp_nodelay={"client": False, "server": True},
                                  samples_ns=[[i, 40_500_000 + 10_000 * i] for i in range(30)])
    path = tmp_path / "r.json"
    rpcarena.Results(cells=[stalled]).save(path)
    done = cli("show", str(path), "-v", env=narrow())  # -v: each contender's warnings in full
    assert done.returncode == 0, done.stderr
    assert_fits(done.stdout)
    said = flat(done.stdout.split("warnings:", 1)[1])
    assert "rpyc:" in said and "took a multiple of ~40 ms beyond the round trip" in said
    assert "TCP_NODELAY is off at the client" in said and "Nagle's algorithm waits for a delayed ACK" in said
    assert "set TCP_NODELAY (for RPyC's client: rpyc-nodelay)" in said


def known() -> rpcarena.Results:
    """Five trials each: tcp-raw the best, grpc-py three times as long, rest-go within noise of tcp-raw."""
    return document(trials("tcp-raw", "usp.int32"), trials("grpc-py", "usp.int32", 3.0),
                    trials("rest-go", "usp.int32", 1.0, noise=(1.01, 0.97, 1.03, 0.99, 1.0)))


def test_the_ranking_marks_the_best_the_slower_and_the_not_significant():
    (ranking,) = answer.rankings(known())
    assert [e.name for e in ranking.entries][2] == "grpc-py"
    verdicts = {e.name: e.verdict for e in ranking.entries}
    assert verdicts["grpc-py"] == "slower" and sorted(verdicts.values()) == ["best", "not significant", "slower"]
    console = Console(record=True, width=WIDTH)
    terminal.summary(known(), console)
    out = console.export_text()
    assert_fits(out)
    assert "not significant" in out and "★ best" in out and re.search(r"3\.\d\dx \[\d\.\d\d, \d\.\d\d\]", out)
    assert "p99 n/s" not in out  # 5 x 300 calls: p99 over 1,500 calls is shown
    assert_every_number_shown(known(), out)


def _moved(contender: str, protocol: str, bytes_per_call: int, scale: float) -> list:
    """Trials on hprpc.large1024 whose calls moved `bytes_per_call` of TCP payload (headers not counted)."""
    return [dataclasses.replace(c, protocol=protocol, wire_in_bytes=c.calls * bytes_per_call // 2,
                                wire_out_bytes=c.calls * bytes_per_call // 2, wire_in_packets=0, wire_out_packets=0)
            for c in trials(contender, "hprpc.large1024", scale)]


def test_netrefs_that_moved_no_data_are_ranked_apart_with_the_bytes_on_both_sides(tmp_path):
    doc = document(_moved("grpc-py", "grpc", 10_240, 2.0), _moved("rest-fastapi", "http-json", 12_000, 4.0),
                   _moved("rpyc-nodelay", "rpyc", 292, 1.0))
    moved, apart = answer.rankings(doc)
    assert [e.name for e in moved.entries] == ["grpc-py", "rest-fastapi"] and not moved.apart
    assert [e.name for e in apart.entries] == ["rpyc-nodelay"] and apart.apart
    (said,) = [w for w in apart.entries[0].warnings if w.kind == "moves-no-data"]
    assert re.search(r"moved 292 B a call where the workload's request and reply encode [\d,]+ B", said.text)
    assert not any(w.kind == "moves-no-data" for e in moved.entries for w in e.warnings)
    shown = json.loads(cli("show", str(doc.save(tmp_path / "r.json")), "--format", "json").stdout)
    ranked = [[e["contender"] for e in r["entries"]] for r in shown["rankings"]]
    assert ranked == [["grpc-py", "rest-fastapi"], ["rpyc-nodelay"]]
    assert [r["moved_data"] for r in shown["rankings"]] == [True, False]
    assert {"kind": "moves-no-data", "text": said.text} in shown["rankings"][1]["entries"][0]["warnings"]
    assert shown["time_goes"] == []  # a seed's workload: no handler asked, nothing to split


def test_a_streams_per_message_latency_and_rate_are_in_the_wide_table_the_csv_and_the_json(tmp_path):
    """A target's server stream: each call's reply messages, their own latency histogram."""
    streamed = [dataclasses.replace(c, messages=c.calls * 3, message_latency_histogram=c.latency_histogram)
                for c in trials("grpc-py", "usp.int32")]
    path = document(streamed).save(tmp_path / "s.json")
    p50 = f"{streamed[0].message_latency['p50_us']:.1f}"
    wide = cli("show", str(path), "--wide", env=dict(os.environ, COLUMNS="240"))
    header = next(line for line in wide.stdout.splitlines() if "contender" in line)
    assert "msg p50 µs" in header and "msg p99 µs" in header and "msg/s" in header, wide.stdout
    assert p50 in wide.stdout
    rows = list(csv.DictReader(io.StringIO(cli("show", str(path), "--format", "csv").stdout)))
    assert f"{float(rows[0]['message_p50_us']):.1f}" == p50 and float(rows[0]["messages_per_s"]) > 0
    entry = json.loads(cli("show", str(path), "--format", "json").stdout)["rankings"][0]["entries"][0]
    assert entry["message_p50_us"] > 0 and entry["messages_per_s"] > 0
    plain = cli("show", str(document(trials("grpc-py", "usp.int32")).save(tmp_path / "u.json")), "--wide",
                env=dict(os.environ, COLUMNS="240"))
    assert "msg p50" not in plain.stdout  # unary calls: no stream columns, and none said left out
    page = report.write_html([report.Source("run", rpcarena.load(path))], tmp_path / "s.html").read_text()
    table = page.split('class="numbers"')[1].split("</table>")[0]
    assert "<th class=\"\">msg p50 µs</th>" in table and f"<td>{float(p50):,.1f}</td>" in table


def test_more_clients_making_fewer_calls_is_said_to_be_the_clients_limit_with_the_native_client_to_use():
    """As Python clients at --clients 8 made 939 calls/s, fewer than at 1 client, against a target."""
    one = trials("grpc-py", "usp.int32")
    eight = [dataclasses.replace(c, clients=8, wall_s=c.wall_s * 1.5) for c in trials("grpc-py", "usp.int32")]
    rankings = answer.rankings(document(one, eight))
    said = {r.clients: [w for e in r.entries for w in e.warnings if w.kind == "client-bottleneck"] for r in rankings}
    assert said[1] == [] and len(said[8]) == 1
    assert "at 8 clients against" in said[8][0].text and "use a native client (--client go" in said[8][0].text


def test_failed_calls_bring_an_errors_column_with_their_share():
    known_doc = known()
    timed_out = {"timeout": 3}
    failing = [dataclasses.replace(c, errors=timed_out) if c.contender == "grpc-py" else c for c in known_doc.cells]
    doc = dataclasses.replace(known_doc, cells=failing)
    console = Console(record=True, width=WIDTH)
    terminal.summary(doc, console, verbose=True)  # -v: each contender's warnings in full
    out = console.export_text()
    assert_fits(out)
    assert "errors" in out and "15 (1.0%)" in out  # 5 trials x 3 failed of 300 + 3
    assert "15 failed calls (timeout 15)" not in out and "3 failed calls (timeout 3)" in flat(out)
    assert_every_number_shown(doc, out)


def test_show_formats_speak_one_vocabulary_with_warnings_per_cell_and_per_group(tmp_path):
    path = known().save(tmp_path / "k.json")
    shown = cli("show", str(path), "--format", "json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    entries = data["rankings"][0]["entries"]
    assert [e["rank"] for e in entries] == [1, 2, 3] and entries[0]["verdict"] == "best"
    assert all(isinstance(e["warnings"], list) for e in entries)
    assert len(data["cells"]) == 15 and all(isinstance(c["warnings"], list) for c in data["cells"])
    said = {w["kind"]: w["text"] for c in data["cells"] for w in c["warnings"]}  # each warning with its kind
    assert "p99, p99.9, so they are not supported" in said["unsupported-percentiles"]
    table = cli("show", str(path), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert len(rows) == 15 and "warnings" in rows[0]
    assert any("p99, p99.9, so they are not supported" in r["warnings"] for r in rows)  # 300 calls a cell
    assert any("unsupported-percentiles" in r["warning_kinds"].split("; ") for r in rows)
    md = cli("show", str(path), "--format", "markdown")
    assert md.stdout.startswith("**answer, by p50") and "### usp.int32, 1 client" in md.stdout
    assert "| 3 | grpc-py |" in md.stdout
    wide = cli("show", str(path), "--format", "markdown", "--wide")
    assert wide.stdout.startswith("| contender | client |") and wide.stdout.count("\n") == 17


def test_run_out_dash_writes_the_document_to_stdout_and_leaves_no_file(tmp_path):
    done = cli("run", "--debug-mode", "--contender", "tcp-raw", "--workload", "usp.void", "-n", "20", "--warmup",
               "0.1s", "-o", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["format"] == "rpcarena-results" and doc["cells"][0]["calls"] == 20
    assert "usp.void, 1 client" in done.stderr and "results:" not in done.stderr
    assert [p.name for p in tmp_path.rglob("*.json")] == []  # only the logs stay, as after any run


def test_export_writes_to_stdout_with_a_dash_and_never_a_file_named_dash(tmp_path):
    done = cli("export", str(FIXTURE), "--csv", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    assert len(list(csv.DictReader(io.StringIO(done.stdout)))) == 8
    both = cli("export", str(FIXTURE), "--format", "json", "-o", str(tmp_path / "o.json"), "--csv", "-")
    assert both.returncode == 0 and len(json.loads((tmp_path / "o.json").read_text())) == 8
    twice = cli("export", str(FIXTURE), "--csv", "-", "--json", "-")
    assert twice.returncode == 2 and "stdout" in twice.stderr


def test_the_wide_table_keeps_what_fits_and_names_what_it_left_out():
    console = Console(record=True, width=WIDTH)
    terminal.render(rpcarena.load(FIXTURE), console)
    out = console.export_text()
    assert_fits(out)
    assert "left out at 100 columns" in out and "p50 µs" in out
    wide = Console(record=True, width=250)
    terminal.render(rpcarena.load(FIXTURE), wide)
    assert "left out" not in wide.export_text()


def test_short_options_as_ghz_has_them_and_no_prefix_is_taken():
    args = rpcarena_cli.parser().parse_args(["run", "-c", "1,8", "-n", "2000", "-o", "x.json", "-q"])
    config = run.config_from(args)
    assert (config.clients, config.calls, str(config.out), args.quiet) == ([1, 8], 2000, "x.json", True)
    assert run.config_from(rpcarena_cli.parser().parse_args(["run", "-z", "3s"])).duration_s == 3.0
    with pytest.raises(SystemExit):  # --clie is not --clients
        rpcarena_cli.parser().parse_args(["target", "--http", "http://x", "--client", "go", "--clie", "2"])


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_a_description_and_examples(name, capsys):
    with pytest.raises(SystemExit):
        rpcarena_cli.parser().parse_args([name, "--help"])
    text = capsys.readouterr().out
    assert "example" in text and len(text.split("\n\n")[1]) > 40, text


def test_version_and_exit_codes_are_documented(capsys):
    with pytest.raises(SystemExit) as done:
        rpcarena_cli.parser().parse_args(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("rpcarena 0.")
    assert rpcarena_cli.main([]) == 2
    text = rpcarena_cli.parser().format_help()
    assert all(f"  {code}  " in text for code in (0, 1, 2, 3))


def test_progress_off_a_terminal_is_a_line_per_cell_and_a_final_line_with_the_part(tmp_path):
    config = RunConfig(contenders=["grpc-py", "rest-fastapi"], workloads=["usp.int32"], calls=10, warmup_s=0,
                       out=tmp_path / "r.json")
    stream = io.StringIO()
    with CellProgress(Console(file=stream, width=WIDTH), "part 2 of 3") as progress:
        Arena(config, fake_plans(config, FakeCells(skip=("rest-fastapi",))), progress, context=fake_context).run()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3, lines
    assert re.fullmatch(r"part 2 of 3: cell 1/2 grpc-py<-py usp.int32 x1: ok, 300 calls, [\d,]+ calls/s, 0 errors "
                        r"\(\d:\d\d elapsed, ETA \d:\d\d\)", lines[0]), lines[0]
    assert lines[1].startswith("part 2 of 3: cell 2/2 rest-fastapi<-py usp.int32 x1: unsupported: skipped")
    assert re.fullmatch(r"part 2 of 3: 2 of 2 cells in \d:\d\d \(1 ok, 1 unsupported\)", lines[2]), lines[2]
    quiet = io.StringIO()
    with CellProgress(Console(file=quiet), quiet=True) as progress:
        Arena(config, fake_plans(config), progress, context=fake_context).run()
    assert quiet.getvalue() == ""


def test_a_suite_names_its_parts_and_prints_the_answer_before_its_findings(tmp_path, monkeypatch, capsys):
    parts: list[str] = []

    def measured(config, console, *args, part="", **kwargs):  # a small document: the suite's wiring is tested
        parts.append(part)
        return rpcarena.Results(config=config.to_json(), cells=trials(config.contenders[0], config.workloads[0]))
    monkeypatch.setattr("rpcarena.commands.suite.run_arena", measured)
    code = rpcarena_cli.main(["suite", "hprpc2016", "--quick", "-o", str(tmp_path / "s.json")])
    out = capsys.readouterr().out
    assert code == 0 and parts == ["part 1 of 2", "part 2 of 2"]
    assert "× best p50" in out and out.index("× best p50") < out.index("findings")
