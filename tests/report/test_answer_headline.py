"""The answer in ten seconds (issue 40): a headline first, then the rankings, then a line per cause,
in every width from 80 columns up, no line wider than the terminal and no word or number cut.

Documents are built from the fixture (`trials`), shaped like the default arena and like the issue's
run on a busy machine, so the layout is tested without measuring.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from rich.console import Console

from rpcarena.report import answer, headline, terminal
from tests.conftest import document, trials

SCREEN = 50  # lines of the terminal the answer must end on, headline included


def contender(name: str, workload: str, scale: float, protocol: str, client: str = "py", **changes) -> list:
    """Three trials of a closed loop of one client: its phase as long as its calls, a third of it busy on
    each side, the workload's bytes moved."""
    language = {"py": "python", "go": "go", "rust": "rust"}[client]
    out = []
    for c in trials(name, workload, scale, noise=(1.0, 1.03, 0.97)):
        wall_s = c.calls * float(c.latency["mean_us"]) / 1e6
        moved = int(c.calls * max(answer.payload_bytes(workload), 100.0) / 2)
        out.append(dataclasses.replace(c, protocol=protocol, client=client, client_language=language,
                                       language=language, wall_s=wall_s,
                                       client_cpu_user_s=wall_s / 3, client_cpu_sys_s=0.0, server_cpu_s=wall_s / 3,
                                       wire_in_bytes=moved, wire_out_bytes=moved, wire_in_packets=0,
                                       wire_out_packets=0, **changes))
    return out


def default_arena(workloads: tuple[str, ...] = ("usp.distance", "hprpc.large1024"), **changes) -> list[list]:
    """9 contenders on 2 workloads, three trials each, as `rpcarena run` measures them; the floors are echoes."""
    out = []
    for workload in workloads:
        out += [contender("rest-warp", workload, 1.2, "http-json", "rust", **changes),
                contender("grpc-tonic", workload, 1.8, "grpc", "rust", **changes),
                contender("grpc-go", workload, 2.2, "grpc", "go", **changes),
                contender("grpc-py", workload, 5.0, "grpc", **changes),
                contender("rest-fastapi", workload, 11.0, "http-json", **changes),
                contender("rpyc-nodelay", workload, 16.0, "rpyc", **changes),
                contender("tcp-raw", workload, 1.0, "tcp-raw", **changes),
                contender("tcp-raw-go", workload, 1.05, "tcp-raw", "go", **changes),
                contender("tcp-raw-rust", workload, 0.95, "tcp-raw", "rust", **changes)]
    return out


def busy(c) -> dict:
    """Another process ran most of a CPU beside every cell, as a busy loop does."""
    return {"contention": {"phase_s": c.wall_s, "server_waited_s": 0.3 * c.wall_s, "others_cpu_s": 0.95 * c.wall_s}}


def with_changes(groups: list[list], change) -> list[list]:
    return [[dataclasses.replace(c, **change(c)) for c in g] for g in groups]


def shown(doc, width: int, **kwargs) -> list[str]:
    console = Console(record=True, width=width)
    terminal.summary(doc, console, **kwargs)
    return console.export_text().splitlines()


def assert_fits(lines: list[str], width: int) -> None:
    assert max(len(line) for line in lines) <= width, "\n".join(lines)
    assert not [line for line in lines if "…" in line], "\n".join(lines)


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_default_arena_answers_on_one_screen_at_any_width(width):
    doc = document(*with_changes(default_arena(), busy))
    lines = shown(doc, width)
    assert_fits(lines, width)
    assert len(lines) + 1 <= SCREEN, "\n".join(lines)  # and the `results:` line: the headline on the last screen
    assert lines[0].startswith("answer, by p50 (95% interval over 3 trials)")
    assert lines[1].strip().startswith("usp.distance: rest-warp, ") and "ahead of grpc-tonic" in lines[1]
    assert lines.index("usp.distance, 1 client") < lines.index("hprpc.large1024, 1 client")
    warned = [line for line in lines if line.startswith("! ")]
    assert [line for line in warned if line.startswith("! other load")] == [warned[0]]  # one line for the cause


def test_columns_that_do_not_fit_drop_and_are_named_once():
    doc = document(*default_arena())
    narrow, wide = shown(doc, 64), shown(doc, 120)  # the table needs 70 columns with its × floor
    assert_fits(narrow, 64)
    assert not any("× floor" in line for line in narrow if line.startswith("#"))
    assert len([line for line in narrow if line.startswith("left out at 64 columns: × floor")]) == 1
    assert any("× floor" in line for line in wide if line.startswith("#"))
    assert not [line for line in wide if line.startswith("left out")]
    for lines in (narrow, wide):  # every ratio and interval whole, on its row
        assert [line for line in lines if re.search(r"\d\.\d\dx \[\d+\.\d\d, \d+\.\d\d\]$", line)]


def test_the_issues_run_on_a_busy_machine_answers_in_36_lines_at_80_columns():
    """`run --contender grpc-py,rest-fastapi,grpc-go,tcp-raw,tcp-raw-go --workload usp.distance,usp.int32
    --repeat 3 -n 500` with a busy loop on one CPU: 47 lines before, 23 of them 7 warnings."""
    groups = []
    for workload in ("usp.distance", "usp.int32"):
        groups += [contender("grpc-go", workload, 2.0, "grpc", "go"), contender("grpc-py", workload, 4.0, "grpc"),
                   contender("rest-fastapi", workload, 40.0, "http-json"),
                   contender("tcp-raw", workload, 0.8, "tcp-raw"),
                   contender("tcp-raw-go", workload, 1.1, "tcp-raw", "go")]
    lines = shown(document(*with_changes(groups, busy)), 80)
    assert_fits(lines, 80)
    assert len(lines) + 1 <= 36, "\n".join(lines)  # with the `results:` line


def known(*scales: float, noise=(1.0, 1.03, 0.97)) -> answer.Ranking:
    names = ("a", "b", "c")
    groups = [[dataclasses.replace(c, protocol="grpc") for c in trials(n, "usp.int32", s, noise=noise)]
              for n, s in zip(names, scales)]
    (ranking,) = answer.rankings(document(*groups))
    return ranking


def test_the_headline_names_the_one_to_pick_by_how_much_and_how_sure():
    ranking = known(1.0, 1.5, 3.0)
    (head, line) = headline.headline([ranking])
    assert head == "answer, by p50 (95% interval over 3 trials):"
    assert re.fullmatch(r"usp\.int32: a, 1\.50x \[\d\.\d\d-\d\.\d\d\] ahead of b", line), line


def test_the_headline_says_when_the_first_cannot_be_told_apart():
    line = headline.headline([known(1.0, 1.01, 3.0)])[1]
    assert line == "usp.int32: no significant difference between a and b"


def test_the_headline_of_too_few_trials_says_it_cannot_tell():
    (head, line) = headline.headline([known(1.0, 1.5, noise=(1.0,))])
    assert head == "answer, by p50 (1 trial, too few to judge):"
    assert line.startswith("usp.int32: a, 1.50x ahead of b (cannot tell: run with --repeat 3")


def test_a_lone_contender_is_the_only_one_measured():
    assert headline.headline([known(1.0)])[1] == "usp.int32: a (the only mechanism measured)"


def test_verbose_gives_each_contenders_sentence_under_its_ranking():
    doc = document(*with_changes(default_arena(), busy))
    lines = shown(doc, 100, verbose=True)
    assert_fits(lines, 100)
    assert "other load: processes outside the run ran 0.95 CPUs" in " ".join(" ".join(lines).split())
