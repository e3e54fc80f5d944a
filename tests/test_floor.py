"""The floor of each cell: the tcp-raw echo driven by the same client language, never another's."""

from __future__ import annotations

import dataclasses

import pytest
from tests.conftest import trials

import rpcarena
from rpcarena import clients
from rpcarena.analysis.floor import below_floor, floor_of, floor_ratio
from rpcarena.commands.run import DEFAULT_CONTENDERS
from rpcarena.contenders import all_contenders, client_language
from rpcarena.report import answer


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
    assert languages == floors == {"py", "go", "rust", "java"}


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
    assert any("its floor (tcp-raw-go" in w for w in entries["grpc-go"].warnings)
    assert not any("its floor" in w for name in ("rest-go", "tcp-raw-go") for w in entries[name].warnings)


def test_the_floor_is_the_least_of_the_echos_measurements():
    first = _cell("tcp-raw-rust", "rust", 0.22, "tcp-raw")
    second = _cell("tcp-raw-rust", "rust", 0.2, "tcp-raw", trial=1)
    warp = _cell("rest-warp", "rust", 0.21, "http-json")  # between the two: below one, above the other
    doc = rpcarena.Results(cells=[first, warp, second])
    assert floor_of(warp, doc) is second and floor_ratio(warp, doc) == pytest.approx(1.05, rel=0.02)
    assert below_floor(warp, doc) is None
