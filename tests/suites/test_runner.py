"""Suites: every claim of every seed gets a verdict; missing systems are listed, never skipped."""

from __future__ import annotations

import html

import pytest

import rpcarena
from rpcarena import report
from rpcarena.config import RunConfig
from rpcarena.seeds import SUITES
from rpcarena.suites import runner
from rpcarena.suites.findings import findings, findings_of
from rpcarena.suites.model import Part, Suite
from rpcarena.suites.vocabulary import NOT_COMPARABLE, VERDICTS
from tests.conftest import FIXTURE, fake_arena

CLAIMS = {"usp2018": 6, "predictions": 3, "hprpc2016": 11, "cs6650": 7, "infobip2016": 6, "multiplexing": 6}


def test_the_five_seeds_and_rpcarenas_own_study_are_suites():
    assert set(SUITES) == set(CLAIMS)
    for name, suite in SUITES.items():
        assert len(suite.claims) == CLAIMS[name] and suite.parts and suite.summary


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_every_claim_gets_a_verdict_and_a_reason(name):
    suite = SUITES[name]
    found = findings(suite, rpcarena.load(FIXTURE), runner.missing_systems(suite))
    assert len(found) == len(suite.claims)
    assert all(f.verdict in VERDICTS and f.said and f.why and f.seed for f in found)


def test_predictions_workloads_exist_now():
    missing = runner.missing_systems(SUITES["predictions"])
    assert "predictions.get" not in missing
    found = findings(SUITES["predictions"], rpcarena.load(FIXTURE), missing)
    assert len(found) == len(SUITES["predictions"].claims)  # the fixture has no predictions cells
    assert all(f.verdict == NOT_COMPARABLE for f in found)


def test_unknown_contenders_are_missing_with_a_reason():
    missing = runner.missing_systems(SUITES["infobip2016"])
    if "typed-json-java" in missing:
        assert missing["typed-json-java"]


def test_a_suite_run_merges_parts_and_reports_findings(tmp_path):
    suite = SUITES["usp2018"]
    seen = []
    out = tmp_path / "suite.json"
    doc = runner.run(suite, quick=True, repeat=None, out=out, run_arena=lambda c: seen.append(c) or fake_arena(c))
    assert seen[0].calls == 200 and seen[0].repeat == 3  # --quick: fewer calls, never fewer than 3 trials
    assert [p["title"] for p in doc.config["parts"]] == [p.title for p in suite.parts]
    again = rpcarena.load(out)
    found, missing = findings_of(again, SUITES)
    assert len(found) == len(suite.claims) and missing == doc.suite["missing"]
    assert not list(tmp_path.glob(".suite.part*.json"))


def test_the_report_shows_findings_and_missing_systems(tmp_path):
    doc = rpcarena.load(FIXTURE)
    found = findings(SUITES["usp2018"], doc, {"rpyc": "not installed"})
    page = report.write_html([report.Source("usp2018", doc, found, {"rpyc": "not installed"})], tmp_path / "s.html")
    text = page.read_text()
    assert "findings" in text and all(html.escape(f.claim) in text for f in found)
    assert "not installed" in text and "not comparable" in text


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_every_seed_is_also_measured_across_a_link_and_its_network_claims_judged(name, tmp_path):
    suite = SUITES[name]
    assert any(p.link for p in suite.parts) and any(not p.link for p in suite.parts)
    doc = runner.run(suite, quick=True, repeat=None, out=tmp_path / "s.json", run_arena=fake_arena)
    for f in findings(suite, doc, {}):
        assert "one host" not in f.why and "needs two machines" not in f.why, (f.claim, f.why)
        if "network" in f.claim.lower() or "link" in f.claim.lower():
            # not comparable only for what a fake run does not measure (bytes on the wire), or an absolute line
            assert f.verdict != NOT_COMPARABLE or "bytes on the wire" in f.why or "absolute line" in f.why, (
                f.claim, f.why)


def test_every_client_makes_a_minimum_of_calls():
    part = SUITES["infobip2016"].parts[0]
    assert runner.phase_calls(part, [1, 32], quick=True) == 32 * runner.QUICK_MIN_CALLS_PER_CLIENT
    assert runner.phase_calls(part, [1, 32, 64, 128], quick=False) == max(part.calls, 128 * runner.MIN_CALLS_PER_CLIENT)
    usp = SUITES["usp2018"].parts[0]
    assert runner.phase_calls(usp, [1], quick=True) == usp.quick_calls  # already above the least


def test_contenders_are_shuffled_per_trial_from_a_recorded_seed(tmp_path):
    from rpcarena.orchestration.contender_cells import plans
    config = RunConfig(contenders=["grpc-py", "rpyc", "tcp-raw", "rest-fastapi"], workloads=["usp.int32"],
                       repeat=8, order_seed=7)
    orders = [[p.subject.id for p in plans(config)][4 * t:4 * t + 4] for t in range(8)]
    assert all(sorted(order) == sorted(config.contenders) for order in orders)
    assert len({tuple(order) for order in orders}) > 2  # not one order rotated
    assert orders == [[p.subject.id for p in plans(config)][4 * t:4 * t + 4] for t in range(8)]  # replayable
    small = Suite("small", "seed", "two parts", tuple(Part(f"part {i}", ("grpc-py", "rpyc"), ("usp.void",), calls=10,
                                                          quick_calls=10) for i in (1, 2)), ())
    seen: list[RunConfig] = []
    doc = runner.run(small, quick=False, repeat=None, out=tmp_path / "s.json",  # (no claim: --quick runs nothing)
                     run_arena=lambda c: seen.append(c) or fake_arena(c))
    assert len(seen) == 2 and {c.order_seed for c in seen} == {doc.config["order_seed"]}


def test_a_part_through_a_proxy_is_not_run_on_a_cluster_and_its_claims_say_why(tmp_path):
    from rpcarena.commands.suite import _unplaced
    suite = SUITES["infobip2016"]
    seen: list[RunConfig] = []
    doc = runner.run(suite, quick=True, repeat=None, out=tmp_path / "s.json",
                     run_arena=lambda c: seen.append(c) or fake_arena(c), refuse=_unplaced)
    assert [c.via for c in seen] == [None]  # the loopback part ran; the HAProxy part did not, silently changed
    assert [bool(p.get("skipped")) for p in doc.config["parts"]] == [False, True]
    network = [f for f in findings(suite, doc, {}) if f.claim.startswith("Network")]
    assert len(network) == 3 and all(f.verdict == NOT_COMPARABLE for f in network)
    assert all("not run: its calls go through haproxy" in f.why for f in network), [f.why for f in network]


def test_loopback_claims_on_a_cluster_run_say_it_has_no_loopback_not_that_nothing_was_measured():
    import dataclasses

    from rpcarena.suites.evidence import Evidence
    from rpcarena.suites.setting import LOOPBACK
    from tests.conftest import document, trials
    nodes = {"server_node": "server", "client_nodes": ["client-0", "client-1"]}
    doc = document(*[[dataclasses.replace(c, cluster=nodes) for c in trials(c, "usp.int32")]
                     for c in ("grpc-py", "rpyc-tuple")])
    why = Evidence(doc, {}).absent("grpc-py", "usp.int32", 1, LOOPBACK)
    assert why.startswith("measured in this run only across the cluster's network, not loopback"), why
    assert "not measured in this run" in Evidence(doc, {}).absent("thrift-binary", "usp.int32", 1, LOOPBACK)
