"""The multiplexing suite's HTTP/3 questions (issue 45), from documents whose answer is known (conftest.trials):
only cells over the lossy link and one shared connection are evidence."""

from __future__ import annotations

import dataclasses

from rpcarena.seeds import SUITES
from rpcarena.seeds.multiplexing.suite import LOSSY, WORKLOAD, h3_faster
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.setting import Setting
from rpcarena.suites.vocabulary import HOLDS, NOT_COMPARABLE, OPPOSITE
from tests.conftest import document, trials


def _design(cells: list, shared: bool = True, lossy: bool = True) -> list:
    return [dataclasses.replace(c, connections=1 if shared else None, link=LOSSY if lossy else None) for c in cells]


def _evidence(*groups: list) -> Evidence:
    return Evidence(document(*groups), {})


def _both(h3_scale: float, **design: bool) -> list:
    return [_design(trials(contender, WORKLOAD, scale, clients=n, cpu=0.1), **design)
            for n in (8, 64) for contender, scale in (("rest-h3-go", h3_scale), ("grpc-go", 1.0))]


def test_http3_faster_over_the_lossy_shared_link_holds():
    found = h3_faster("p99")(_evidence(*_both(0.5)))
    assert found.verdict == HOLDS and len(found.measured) == 2  # one ratio per level of calls in flight
    assert found.measured[0].what == f"grpc-go/rest-h3-go {WORKLOAD} x8 over the {LOSSY} link 1 connection shared"


def test_http3_slower_is_the_opposite():
    assert h3_faster("median")(_evidence(*_both(2.0))).verdict == OPPOSITE


def test_cells_on_loopback_or_on_own_connections_are_not_evidence():
    assert h3_faster("p99")(_evidence(*_both(0.5, lossy=False))).verdict == NOT_COMPARABLE
    assert h3_faster("p99")(_evidence(*_both(0.5, shared=False))).verdict == NOT_COMPARABLE


def test_the_rules_read_only_the_lossy_shared_cells():
    rule = h3_faster("p99")
    assert {where for *_, where in rule.cells()} == {Setting(LOSSY, 1)}
    asked = [c.rule for c in SUITES["multiplexing"].claims if "HTTP/3" in c.text]
    assert len(asked) == 2 and all(r.cells() for r in asked)
