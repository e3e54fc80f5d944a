"""The multiplexing suite's judges, from documents whose answer is known (see conftest.trials)."""

from __future__ import annotations

import dataclasses

from rpcarena.seeds import SUITES
from rpcarena.seeds.multiplexing.suite import LOSSY, WORKLOAD, less_memory, shared_slower
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.vocabulary import FAILS, HOLDS, NOT_COMPARABLE, OPPOSITE
from tests.conftest import document, trials


def _design(cells: list, shared: bool, lossy: bool = False, rss: int | None = None) -> list:
    return [dataclasses.replace(c, connections=1 if shared else None, link=LOSSY if lossy else None,
                                server_peak_rss_bytes=rss or c.server_peak_rss_bytes) for c in cells]


def _evidence(*groups: list) -> Evidence:
    return Evidence(document(*groups), {})


def test_head_of_line_shows_when_shared_calls_take_longer_over_the_lossy_link():
    groups = [_design(trials("grpc-go", WORKLOAD, scale, clients=n, cpu=0.1), shared, lossy=True)
              for n in (8, 64) for scale, shared in ((3.0, True), (1.0, False))]
    found = shared_slower("grpc-go", "p99", LOSSY)(_evidence(*groups))
    assert found.verdict == HOLDS and len(found.measured) == 2
    assert shared_slower("grpc-go", "p99")(_evidence(*groups)).verdict == NOT_COMPARABLE


def test_faster_shared_is_the_opposite():
    groups = [_design(trials("rest-go", WORKLOAD, scale, clients=n, cpu=0.1), shared)
              for n in (8, 64) for scale, shared in ((0.5, True), (1.0, False))]
    assert shared_slower("rest-go", "median")(_evidence(*groups)).verdict == OPPOSITE


def test_a_client_bound_level_cannot_judge_sharing():
    """The client's ceiling is not the connection's: a level whose clients saturated their CPU tells nothing."""
    groups = [_design(trials("rest-go", WORKLOAD, scale, clients=n, cpu=cpu), shared)
              for n, cpu in ((8, 0.1), (64, 50.0)) for scale, shared in ((0.5, True), (1.0, False))]
    found = shared_slower("rest-go", "median")(_evidence(*groups))
    assert found.measured[1].significance.startswith("cannot tell: client-bound in trial")
    assert found.verdict == FAILS  # the opposite at 8, nothing at 64: not the whole family the opposite


def test_server_memory_is_compared_trial_by_trial():
    shared = _design(trials("grpc-go", WORKLOAD, clients=64), True, rss=20 << 20)
    own = _design(trials("grpc-go", WORKLOAD, clients=64), False, rss=30 << 20)
    assert less_memory("grpc-go")(_evidence(shared, own)).verdict == HOLDS
    assert less_memory("grpc-go")(_evidence(own)).verdict == NOT_COMPARABLE


def test_the_suite_asks_six_questions_over_four_parts():
    suite = SUITES["multiplexing"]
    assert [p.connections for p in suite.parts] == [None, 1, None, 1]
    assert all(claim.question for claim in suite.claims) and len(suite.claims) == 6
