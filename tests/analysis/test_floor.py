"""The floor of each cell: the tcp-raw echo driven by the same client language, never another's."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rich.console import Console

import rpcarena
from rpcarena import clients
from rpcarena.analysis.floor import below_floor, floor_of, floor_ratio
from rpcarena.commands.run import DEFAULT_CONTENDERS
from rpcarena.contenders import all_contenders, client_language
from rpcarena.report import answer, terminal
from tests.conftest import trials


def _cell(contender: str, client: str, scale: float, protocol: str, **changes):
    cell = trials(contender, "usp.int32", scale, noise=(1.0,))[0]
    return dataclasses.replace(cell, client=client, protocol=protocol, **changes)


@pytest.mark.parametrize("client, language", [("py", "py"), ("py-tuple-nodelay", "py"), ("py-requests", "py"),
                                              ("go", "go"), ("rust", "rust"), ("rust-h1", "rust"), ("java", "java"),
                                              ("target-go", "go")])
def test_client_language(client, language):
    assert client_language(client) == language
    assert clients.language_named(client) == language  # what a document without client_language reads


def test_a_recorded_client_language_is_read_before_the_id():
    rust_floor = _cell("tcp-raw-rust", "rust", 0.2, "tcp-raw")
    h2load = _cell("rest-warp", "h2load", 0.5, "http-json", client_language="rust")
    assert floor_of(h2load, rpcarena.Results(cells=[rust_floor, h2load])) is rust_floor


def test_each_client_language_has_its_own_floor():
    py_floor = _cell("tcp-raw", "py", 1.0, "tcp-raw")
    rust_floor = _cell("tcp-raw-rust", "rust", 0.2, "tcp-raw")
    warp = _cell("rest-warp", "rust", 0.5, "http-json")
    fastapi = _cell("rest-fastapi", "py", 3.0, "http-json")
    doc = rpcarena.Results(cells=[py_floor, rust_floor, warp, fastapi])
    assert floor_of(warp, doc) is rust_floor and floor_of(fastapi, doc) is py_floor
    assert floor_ratio(warp, doc) == pytest.approx(2.5, rel=0.02)  # 0.9x against the Python echo, before
    assert floor_ratio(fastapi, doc) == pytest.approx(3.0, rel=0.02)


def test_without_a_floor_of_its_language_there_is_no_ratio():
    doc = rpcarena.Results(cells=[_cell("tcp-raw", "py", 1.0, "tcp-raw"), warp := _cell("rest-warp", "rust", 0.5,
                                                                                         "http-json")])
    assert floor_of(warp, doc) is None and floor_ratio(warp, doc) is None


def test_a_floor_over_another_network_or_concurrency_is_not_the_floor():
    warp = _cell("rest-warp", "rust", 0.5, "http-json")
    elsewhere = [_cell("tcp-raw-rust", "rust", 0.2, "tcp-raw", link="wifi"),
                 _cell("tcp-raw-rust", "rust", 0.2, "tcp-raw", clients=8)]
    assert floor_of(warp, rpcarena.Results(cells=[*elsewhere, warp])) is None


def test_the_default_arena_has_the_floor_of_every_client_language_it_drives_with():
    contenders = all_contenders()
    languages = {client_language(contenders[c].default_client()) for c in DEFAULT_CONTENDERS}
    floors = {client_language(contenders[c].default_client()) for c in DEFAULT_CONTENDERS
              if contenders[c].protocol == "tcp-raw"}
    assert languages == floors == {"py", "go", "rust"}


def test_a_cell_below_its_floor_is_said_to_contradict_it():
    floor = _cell("tcp-raw-go", "go", 2.0, "tcp-raw")
    grpc, rest = _cell("grpc-go", "go", 0.6, "grpc"), _cell("rest-go", "go", 2.4, "http-json")
    doc = rpcarena.Results(cells=[floor, grpc, rest])
    said = below_floor(grpc, doc)
    assert said is not None and "0.30x its floor (tcp-raw-go" in said and "--repeat 3" in said
    assert below_floor(rest, doc) is None and below_floor(floor, doc) is None


def test_the_terminal_answer_says_a_cell_read_below_its_floor():
    floor = _cell("tcp-raw-go", "go", 2.0, "tcp-raw")
    grpc, rest = _cell("grpc-go", "go", 0.6, "grpc"), _cell("rest-go", "go", 2.4, "http-json")
    entries = {e.group.contender: e for r in answer.rankings(rpcarena.Results(cells=[floor, grpc, rest]))
               for e in r.entries}
    assert any("its floor (tcp-raw-go" in w.text and w.kind == "below-floor" for w in entries["grpc-go"].warnings)
    assert not any("its floor" in w.text for w in entries["rest-go"].warnings)


def test_the_floor_is_the_least_of_the_echos_measurements():
    first = _cell("tcp-raw-rust", "rust", 0.22, "tcp-raw")
    second = _cell("tcp-raw-rust", "rust", 0.2, "tcp-raw", trial=1)
    warp = _cell("rest-warp", "rust", 0.21, "http-json")  # between the two: below one, above the other
    doc = rpcarena.Results(cells=[first, warp, second])
    assert floor_of(warp, doc) is second and floor_ratio(warp, doc) == pytest.approx(1.05, rel=0.02)
    assert below_floor(warp, doc) is None


def _trials(contender: str, client: str, scale: float, protocol: str) -> list:
    language = "python" if client == "py" else client
    return [dataclasses.replace(c, client=client, protocol=protocol, language=language)
            for c in trials(contender, "usp.int32", scale)]


def _floored() -> rpcarena.Results:
    """Five trials each: the Python echo, grpc-py 3 times it, rest-fastapi 6 times, and Go's echo and grpc-go."""
    return rpcarena.Results(cells=[*_trials("tcp-raw", "py", 1.0, "tcp-raw"), *_trials("grpc-py", "py", 3.0, "grpc"),
                                   *_trials("rest-fastapi", "py", 6.0, "http-json"),
                                   *_trials("tcp-raw-go", "go", 0.5, "tcp-raw"),
                                   *_trials("grpc-go", "go", 2.0, "grpc")])


def test_floors_are_the_reference_line_not_ranked_among_the_mechanisms():
    (ranking,) = answer.rankings(_floored())
    assert [e.name for e in ranking.entries] == ["grpc-go", "grpc-py", "rest-fastapi"]
    assert ranking.entries[0].best and [e.verdict for e in ranking.entries[1:]] == ["slower", "slower"]
    assert [(f.name, f.group.cells[0].client) for f in ranking.floors] == [("tcp-raw-go", "go"), ("tcp-raw", "py")]
    x_floor = {e.name: e.x_floor for e in ranking.entries}  # over the least trial of its language's floor
    assert x_floor == pytest.approx({"grpc-go": 4.0, "grpc-py": 3.0, "rest-fastapi": 6.0}, rel=0.03)
    data = ranking.to_json()
    assert [e["contender"] for e in data["entries"]] == ["grpc-go", "grpc-py", "rest-fastapi"]
    assert [f["contender"] for f in data["floors"]] == ["tcp-raw-go", "tcp-raw"]


def test_the_terminal_shows_the_floor_below_the_ranking_with_each_mechanisms_x_floor():
    console = Console(record=True, width=100)
    terminal.summary(_floored(), console)
    out = console.export_text()
    assert re.search(r"floor: tcp-raw-go [\d.]+ µs, tcp-raw [\d.]+ µs", out), out
    best = next(line for line in out.splitlines() if "★ best" in line)
    assert best.split()[:2] == ["1", "grpc-go"] and re.search(r" 4\.\d\dx ", best)
    assert not any(line.split()[:1] in (["1"], ["2"], ["3"]) and "tcp-raw" in line for line in out.splitlines())


def test_a_run_of_floors_alone_still_ranks_them():
    doc = rpcarena.Results(cells=[*_trials("tcp-raw", "py", 1.0, "tcp-raw"), *_trials("tcp-raw-go", "go", 0.5,
                                                                                        "tcp-raw")])
    (ranking,) = answer.rankings(doc)
    assert [e.name for e in ranking.entries] == ["tcp-raw-go", "tcp-raw"] and ranking.floors == []


def test_across_a_link_a_cell_just_below_its_floor_contradicts_nothing():
    """Both are mostly the link's round trip; the delay line varies it by a few percent."""
    floor = _cell("tcp-raw-go", "go", 2.0, "tcp-raw", link="rtt=20ms")
    close, far = (_cell("grpc-go", "go", 2.0 * k, "grpc", link="rtt=20ms") for k in (0.96, 0.8))
    doc = rpcarena.Results(cells=[floor, close, far])
    assert below_floor(close, doc) is None and below_floor(far, doc) is not None
