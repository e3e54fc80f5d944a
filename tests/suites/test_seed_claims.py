"""Each seed's claims judged by their rules on documents whose answer is known: the fixture's cell,
its latencies scaled per system (`tests.conftest.trials`: five trials a few percent apart)."""

from __future__ import annotations

import dataclasses

from rpcarena.seeds import SUITES
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.findings import findings
from rpcarena.suites.operands import Measure
from rpcarena.suites.rules import Rule, pairs
from rpcarena.suites.setting import LOOPBACK, Setting
from rpcarena.suites.vocabulary import (
    EQUIVALENT,
    FAILS,
    HOLDS,
    MAGNITUDE,
    NOT_COMPARABLE,
    NOT_EQUIVALENT,
    PARTLY,
    UNDECIDED,
    VERDICTS,
)
from tests.conftest import document, trials

WORD = "cs6650.word"
SAME = (0.99, 1.0, 1.01, 1.02, 0.98)  # other trials of the same: no difference to find


def finding(suite: str, claim_start: str, *groups):
    """The finding of the suite's claim whose text starts so, judged on these groups of trials."""
    found = findings(SUITES[suite], document(*groups), {})
    return next(f for f in found if f.claim.startswith(claim_start))


def judged(rows):
    """The rows that decide, without those shown beside."""
    return [m for m in rows if not m.significance.startswith("beside")]


def driven(cells, client):
    return [dataclasses.replace(c, client=client) for c in cells]


def test_a_direction_says_its_statistic_its_reading_and_its_family():
    rule = Rule(pairs([("rest-fastapi", "grpc-py")], (WORD,)))
    found = rule(Evidence(document(trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0)), {}))
    row = found.measured[0]
    assert found.verdict == HOLDS and (row.what, row.statistic, row.significance) == (
        "rest-fastapi/grpc-py cs6650.word x1", "mean latency", "shown")
    assert row.text().startswith("mean latency rest-fastapi/grpc-py cs6650.word x1: 2.00x [")
    assert "1.82x means rest-fastapi takes 1.82 times as long as grpc-py" in found.rule
    assert "a family of 1 cell, one Holm correction" in found.rule and "3 or more trials a side" in found.rule


def test_usp_function_12_up_to_10x_needs_the_band_and_shows_the_seeds_own_setup_beside():
    d = "usp.distance"
    tuned = finding("usp2018", "Function 12", trials("grpc-py", d), trials("rpyc-nodelay", d, 2.2),
                    trials("rpyc", d, 69.0))
    assert tuned.verdict == MAGNITUDE and "not up to 10x" in tuned.measured[0].significance
    beside = [m for m in tuned.measured if "the seed's own setup" in m.significance]
    assert len(beside) == 1 and beside[0].what == "rpyc/grpc-py usp.distance x1" and "69.00x" in beside[0].text()
    reached = finding("usp2018", "Function 12", trials("grpc-py", d), trials("rpyc-nodelay", d, 9.0))
    assert reached.verdict == HOLDS


def test_usp_tuples_are_two_statements_of_one_family():
    d = "usp.distance"
    both = finding("usp2018", "Passing tuples", trials("grpc-py", d), trials("rpyc-nodelay", d, 12.0),
                   trials("rpyc-tuple-nodelay", d, 1.2))
    faster_than_grpc = finding("usp2018", "Passing tuples", trials("grpc-py", d), trials("rpyc-nodelay", d, 2.6),
                               trials("rpyc-tuple-nodelay", d, 0.28))
    assert both.verdict == HOLDS and [m.what for m in judged(both.measured)] == [
        "rpyc-nodelay/rpyc-tuple-nodelay usp.distance x1", "rpyc-tuple-nodelay/grpc-py usp.distance x1"]
    assert faster_than_grpc.verdict == FAILS and "the opposite for 1 of 2 cells" in faster_than_grpc.why


def test_usp_nagle_is_at_least_2x_its_own_stall_not_a_diagnosis():
    d = "usp.distance"
    stalled = finding("usp2018", "(rpcarena) As users get it", trials("grpc-py", d), trials("rpyc-nodelay", d, 10.0),
                      trials("rpyc", d, 200.0))
    small = finding("usp2018", "(rpcarena) As users get it", trials("grpc-py", d), trials("rpyc-nodelay", d, 10.0),
                    trials("rpyc", d, 15.0))
    assert stalled.verdict == HOLDS and small.verdict == MAGNITUDE


def test_cs6650_network_claims_are_judged_on_a_new_connection_per_call_with_the_others_beside():
    cloud = "cloud-cross-region"
    groups = (trials("grpc-py", WORD, link=cloud), trials("rest-fastapi", WORD, 1.1, link=cloud),
              driven(trials("rest-fastapi", WORD, 2.5, link=cloud), "py-newconn"),
              driven(trials("rest-fastapi", WORD, 2.2, link=cloud), "go-newconn"))
    found = finding("cs6650", "Exp. 1 (network", *groups)
    assert found.verdict == HOLDS
    assert judged(found.measured)[0].what == "rest-fastapi<-py-newconn/grpc-py cs6650.word x1 over the " \
                                            "cloud-cross-region link"
    notes = [m.significance for m in found.measured if m.significance.startswith("beside")
             and "CV above" not in m.significance]
    assert len(notes) == 2 and "keep-alive REST" in notes[0] and "go-newconn" in notes[1]
    keep_alive_only = finding("cs6650", "Exp. 1 (network", *groups[:2])
    assert keep_alive_only.verdict == NOT_COMPARABLE and "rest-fastapi<-py-newconn" in keep_alive_only.why


def test_a_cell_from_another_link_is_not_comparable_and_a_testbed_of_the_claims_link_is():
    nodes = {"server_node": "server", "client_nodes": ["client-0"]}
    groups = [dataclasses.replace(c, cluster=nodes) for g in (
        trials("grpc-py", WORD), driven(trials("rest-fastapi", WORD, 2.5), "py-newconn")) for c in g]
    other = dataclasses.replace(document(groups), cluster={"spec": "netns:rtt=10ms,clients=1"})
    same = dataclasses.replace(document(groups), cluster={"spec": "netns:cloud-cross-region,clients=1"})
    exp1 = SUITES["cs6650"].claims[0].rule
    elsewhere = exp1(Evidence(other, {}))
    assert elsewhere.verdict == NOT_COMPARABLE
    assert "only across the cluster's network" not in elsewhere.why and "over the rtt=10ms link" in elsewhere.why
    assert exp1(Evidence(same, {})).verdict == HOLDS


def test_cs6650_exp3_up_to_10x_is_not_any_win():
    found = finding("cs6650", "Exp. 3", trials("grpc-py", WORD), trials("rest-fastapi", WORD, 1.8))
    assert found.verdict == MAGNITUDE
    assert finding("cs6650", "Exp. 3", trials("grpc-py", WORD), trials("rest-fastapi", WORD, 9.85)).verdict == HOLDS


def test_cs6650_questions_use_the_same_words_and_one_family():
    stream = "cs6650.stream"
    groups = [g for c in ("grpc-py", "grpc-go", "grpc-tonic", "grpc-java") for g in (trials(c, WORD, 3.0),
                                                                                      trials(c, stream))]
    found = finding("cs6650", "Open question: is a word inverted faster", *groups, trials("rest-fastapi", WORD, 3.0),
                    trials("rest-fastapi", stream, 3.0, noise=SAME))
    assert found.verdict == PARTLY and found.said == "holds in part (4 of 5 cells)"
    assert found.measured[0].what == "grpc-py cs6650.word x1/cs6650.stream x1"
    cost = finding("cs6650", "Open question: does gRPC cost less CPU", trials("grpc-py", WORD, 1.0, cpu=1.0),
                   trials("rest-fastapi", WORD, 1.0, cpu=2.0))
    assert cost.verdict == HOLDS and cost.measured[0].statistic == "CPU per call (client + server)"


def test_hprpc_tag_claims_are_judged_on_the_pair_that_differs_only_in_tags():
    hello = "hprpc.hello"
    groups = [trials("tagless", hello), trials("proto-frames", hello, noise=SAME), trials("grpc-py", hello, 8.0),
              trials("tagless-go", hello), trials("proto-frames-go", hello, 1.05, noise=SAME),
              trials("grpc-go", hello, 3.0)]
    found = finding("hprpc2016", "SayHello", *groups)
    assert found.verdict == UNDECIDED  # the tags alone: no difference, whatever gRPC's 8x
    assert [m.what for m in judged(found.measured)] == ["proto-frames/tagless hprpc.hello x1",
                                                        "proto-frames-go/tagless-go hprpc.hello x1"]
    beside = [m.what.split()[0] for m in found.measured if m.significance.startswith("beside: the transport")]
    assert beside == ["grpc-py/proto-frames", "grpc-go/proto-frames-go"]


def test_hprpc_tags_question_leaves_out_packed_repeated_fields():
    question = next(c for c in SUITES["hprpc2016"].claims if c.text.startswith("(rpcarena) Is it the tags?"))
    workloads = {cell[1] for cell in question.rule.cells()}
    assert workloads == {"hprpc.hello", "hprpc.large128", "hprpc.large8192"}


def test_hprpc_bytes_grow_faster_for_protobuf_trial_by_trial():
    def with_bytes(contender, workload, payload):
        return [dataclasses.replace(c, wire_in_bytes=payload, wire_in_packets=0, wire_out_bytes=0, wire_out_packets=0)
                for c in trials(contender, workload)]
    small, large = "hprpc.large128", "hprpc.large8192"
    groups = [with_bytes(c, w, n) for c, w, n in (
        ("proto-frames", small, 300 * 700), ("proto-frames", large, 300 * 50_000),
        ("tagless", small, 300 * 600), ("tagless", large, 300 * 33_000),
        ("proto-frames-go", small, 300 * 700), ("proto-frames-go", large, 300 * 50_000),
        ("tagless-go", small, 300 * 600), ("tagless-go", large, 300 * 33_000))]
    found = finding("hprpc2016", "Bytes on the wire", *groups)
    assert found.verdict == HOLDS
    assert judged(found.measured)[0].what == "proto-frames/tagless hprpc.large128 -> hprpc.large8192"


def _infobip(json_over_mml: dict[str, float], link: str | None = None, javaser: float | None = None) -> list:
    groups = []
    for w, ratio in json_over_mml.items():
        groups += [trials("typed-json-java", w, link=link), trials("rest-jackson", w, ratio, link=link)]
        if javaser:
            groups.append(trials("http-javaser", w, ratio * javaser, link=link))
    return groups


def test_infobip_http_equals_mml_by_tost_and_an_interval_outside_the_margin_refutes_it():
    equal = finding("infobip2016", "Localhost: the HTTP protocols equal MML",
                    *_infobip({"infobip.items10": 2.0, "infobip.items100": 1.0}, javaser=1.0))
    apart = finding("infobip2016", "Localhost: the HTTP protocols equal MML",
                    *_infobip({"infobip.items10": 2.0, "infobip.items100": 1.93}, javaser=1.0))
    assert equal.verdict == EQUIVALENT and apart.verdict == NOT_EQUIVALENT
    assert "inside 0.909x to 1.1x (the margin 'igualaron' implies)" in equal.rule
    assert any(m.significance.startswith("beside: the gap at 10 items") for m in equal.measured)


def test_infobip_lead_still_ahead_but_smaller_is_one_family_of_both_statements():
    loopback = _infobip({"infobip.items0": 3.0, "infobip.items10": 3.0}, javaser=1.0)
    shrunk = _infobip({"infobip.items0": 1.5, "infobip.items10": 1.5}, "rtt=0.3ms,jitter=0.05ms,rate=100mbit", 1.0)
    found = finding("infobip2016", "Network (HAProxy; here a 100 Mbit/s LAN link): MML still leads", *loopback,
                    *shrunk)
    assert found.verdict == HOLDS and len(judged(found.measured)) == 8
    assert "rest-jackson/typed-json-java infobip.items0 x1: loopback / over the rtt=0.3ms,jitter=0.05ms," \
           "rate=100mbit link" in [m.what for m in found.measured]


def test_predictions_share_under_a_line_is_shown_and_never_judged():
    w, wifi = "predictions.get", "wifi"
    groups = [driven(trials(s, w, link=wifi), "py") for s in ("grpc-py", "grpc-go", "rest-fastapi", "rest-warp")]
    found = finding("predictions", "Only gRPC answered under 30 ms", *groups)
    assert found.verdict == NOT_COMPARABLE and "absolute line" in found.why
    assert found.measured[0].text().startswith("calls under 30 ms per trial grpc-py over the wifi link: 100%")


def test_predictions_batches_are_ordered_with_the_seeds_new_connection_rest_and_keep_alive_beside():
    w, wifi = "predictions.get", "wifi"
    groups = [driven(trials(s, w, k, clients=100, link=wifi, cpu=0.1), "py")
              for s, k in (("grpc-go", 1.0), ("grpc-py", 2.0), ("rest-fastapi", 2.1), ("rest-warp", 2.1))]
    groups += [driven(trials(s, w, 4.0, clients=100, link=wifi, cpu=0.1), "py-newconn")
               for s in ("rest-fastapi", "rest-warp")]
    found = finding("predictions", "In batches", *groups)
    assert found.verdict == HOLDS and "ordering grpc-go < grpc-py <" in found.rule
    assert sum(m.significance.startswith("beside: keep-alive REST") for m in found.measured) == 2


def test_predictions_quick_judges_the_same_batches_and_says_the_keep_alive_rows_are_a_full_runs():
    w, wifi = "predictions.get", "wifi"
    groups = [driven(trials(s, w, k, clients=100, link=wifi, cpu=0.1), "py") for s, k in (("grpc-go", 1.0),
                                                                                         ("grpc-py", 2.0))]
    groups += [driven(trials(s, w, 4.0, clients=100, link=wifi, cpu=0.1), "py-newconn")
               for s in ("rest-fastapi", "rest-warp")]
    doc = dataclasses.replace(document(*groups), suite={"name": "predictions", "quick": True, "missing": {}})
    found = SUITES["predictions"].claims[1].rule(Evidence(doc, {}))
    assert found.verdict == HOLDS and len(judged(found.measured)) == 3
    assert not [m for m in found.measured if m.significance.startswith("beside: keep-alive")]
    assert "shown beside in a full run only: rest-fastapi<-py/grpc-py predictions.get x100 over the wifi link, " \
           "rest-warp<-py/grpc-py predictions.get x100 over the wifi link" in found.why


def test_multiplexing_compares_one_shared_connection_with_one_each():
    w = "multiplexing.str1024"
    groups = [[dataclasses.replace(c, connections=1) for c in trials("grpc-go", w, 1.5, clients=n, cpu=0.1)]
              for n in (8, 64)] + [trials("grpc-go", w, 1.0, clients=n, cpu=0.1) for n in (8, 64)]
    found = finding("multiplexing", "On loopback, do gRPC calls take longer", *groups)
    assert found.verdict == HOLDS
    assert found.measured[0].what == "grpc-go 1 connection shared/one connection each multiplexing.str1024 x8"


def test_a_failed_trial_is_missing_evidence_never_a_trial():
    rest = trials("rest-fastapi", WORD, 2.0)
    rest[1] = dataclasses.replace(rest[1], status="failed", reason="boom")
    found = Rule(pairs([("rest-fastapi", "grpc-py")], (WORD,)))(Evidence(document(trials("grpc-py", WORD), rest), {}))
    assert found.verdict == UNDECIDED and "trial 2 of rest-fastapi failed (missing evidence)" in found.why


def test_quick_leaves_out_the_levels_it_does_not_run_and_says_so():
    doc = dataclasses.replace(document(*_infobip({"infobip.items0": 2.0, "infobip.items10": 2.0}, javaser=1.0)),
                              suite={"name": "infobip2016", "quick": True, "missing": {}})
    found = SUITES["infobip2016"].claims[0].rule(Evidence(doc, {}))
    assert "not in --quick: rest-jackson/typed-json-java infobip.items0 x64" in found.why
    full = SUITES["infobip2016"].claims[0].rule.cells(quick=False)
    quick = SUITES["infobip2016"].claims[0].rule.cells(quick=True)
    assert len(full) > len(quick) and all(cell[2] in (1, 32) for cell in quick)


def test_a_rule_lists_the_cells_it_reads_for_a_run_cut_to_them():
    cells = SUITES["cs6650"].claims[2].rule.cells()  # Exp. 3
    assert cells == [("rest-fastapi", WORD, 1, LOOPBACK), ("grpc-py", WORD, 1, LOOPBACK)]
    assert ("rest-fastapi<-py-newconn", WORD, 1, Setting("cloud-cross-region")) in SUITES["cs6650"].cells()
    assert Measure("a", WORD).cells() == (("a", WORD, 1, LOOPBACK),)


def test_every_claim_of_every_suite_has_a_verdict_word_why_and_rule():
    groups = (trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0))
    for name, suite in SUITES.items():
        for f in findings(suite, document(*groups), {}):
            assert f.verdict in VERDICTS and f.said and f.why and f.rule, (name, f.claim)
