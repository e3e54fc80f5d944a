"""Each judge on a fixed document whose answer is known: the fixture's cell, its latencies scaled per system.

Trials differ by a few percent (conftest.NOISE), so a ratio of 2 is significant with five trials a side,
a ratio of 1 is not, and one trial a side cannot tell.
"""

from __future__ import annotations

import pytest
from tests.conftest import NOISE, document, trials

from rpcarena.analysis import stats
from rpcarena.seeds import SUITES
from rpcarena.suites import judges
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.findings import findings
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, PARTLY, UNDECIDED, VERDICTS

WORD = "cs6650.word"
SHUFFLED = (0.99, 1.0, 1.01, 1.02, 0.98)  # other trials of the same: no difference to find


def evidence(*groups) -> Evidence:
    return Evidence(document(*groups), {})


def finding(suite: str, claim_start: str, *groups):
    """The finding of the suite's claim whose text starts so, judged on these groups."""
    found = findings(SUITES[suite], document(*groups), {})
    return next(f for f in found if f.claim.startswith(claim_start))


def test_faster_holds_and_says_its_statistic_direction_and_threshold():
    judged = judges.faster("grpc-py", "rest-fastapi", [WORD], "mean")(
        evidence(trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0)))
    assert judged.verdict == HOLDS and judged.says() == "holds" and len(judged.measured) == 1
    assert judged.measured[0].startswith("rest-fastapi/grpc-py mean latency cs6650.word x1: 2.00x [")
    assert "1.82x means rest-fastapi takes 1.82 times as long as grpc-py" in judged.rule
    assert "95% interval over trials is above 1 in every cell" in judged.rule and "3 or more trials" in judged.rule


def test_faster_in_some_cells_holds_in_part_and_names_the_rest():
    judged = judges.faster("grpc-py", "rest-fastapi", ["usp.int32", WORD], "median")(evidence(
        trials("grpc-py", "usp.int32"), trials("rest-fastapi", "usp.int32", 1.5),
        trials("grpc-py", WORD), trials("rest-fastapi", WORD, 1.0, noise=SHUFFLED)))
    assert judged.verdict == PARTLY and judged.share == "1 of 2 cells"
    assert judged.says() == "holds for 1 of 2 cells" and judged.says(question=True) == "yes, for 1 of 2 cells"
    assert "not significant for cs6650.word x1" in judged.why and len(judged.measured) == 2


@pytest.mark.parametrize("rest, noise, verdict, why", [
    (0.5, NOISE, FAILS, "the opposite for cs6650.word x1"),
    (1.0, SHUFFLED, UNDECIDED, "not significant for cs6650.word x1"),
    (2.0, (1.0,), UNDECIDED, stats.CANNOT_TELL),
])
def test_faster_fails_only_on_the_opposite_and_cannot_tell_otherwise(rest, noise, verdict, why):
    ev = evidence(trials("grpc-py", WORD, noise=noise), trials("rest-fastapi", WORD, rest, noise=noise))
    judged = judges.faster("grpc-py", "rest-fastapi", [WORD], "mean")(ev)
    assert judged.verdict == verdict and why in judged.why


def test_magnitude_is_the_excess_over_1_within_a_factor_2():
    assert judges.band(10.0) == (5.5, 19.0)
    assert judges.band(1.093) == pytest.approx((1.0465, 1.186))
    claim = judges.faster("grpc-py", "rest-fastapi", [WORD], "mean", seed_ratio=10.0)
    about = claim(evidence(trials("grpc-py", WORD), trials("rest-fastapi", WORD, 9.0)))
    far = claim(evidence(trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0)))
    assert about.verdict == HOLDS and "about 10x" in about.why
    assert far.verdict == FAILS and "not about 10x in cs6650.word x1" in far.why
    assert "reaching 5.5x to 19x ('about 10x')" in far.rule


def test_every_pair_holds_in_part_and_says_for_which_pairs():
    pairs = (("grpc-py", "rest-fastapi"), ("grpc-go", "rest-go"))
    judged = judges.every_pair(pairs, lambda f, s: judges.faster(f, s, [WORD], "mean"))(evidence(
        trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0),
        trials("grpc-go", WORD), trials("rest-go", WORD, 1.0, noise=SHUFFLED)))
    assert judged.verdict == PARTLY and judged.says() == "holds for 1 of 2 pairs"
    assert judged.why.splitlines()[0].startswith("rest-fastapi/grpc-py: holds: ")
    assert judged.why.splitlines()[1].startswith("rest-go/grpc-go: cannot tell: ")
    assert len(judged.measured) == 2 and judged.rule.endswith("(each pair alike)")


def test_every_pair_leaves_out_a_pair_not_measured_at_that_level():
    pairs = (("grpc-py", "rest-fastapi"), ("grpc-go", "rest-go"))
    judged = judges.every_pair(pairs, lambda f, s: judges.faster(f, s, [WORD], "mean", clients=(8,)))(evidence(
        trials("grpc-py", WORD, clients=8), trials("rest-fastapi", WORD, 2.0, clients=8),
        trials("grpc-go", WORD), trials("rest-go", WORD, 2.0)))
    assert judged.verdict == HOLDS
    assert "rest-go/grpc-go: not comparable here: no cell measured both with 8 clients" in judged.why


def test_every_pair_with_no_pair_measured_says_what_is_missing():
    judged = judges.every_pair((("grpc-go", "rest-go"),), lambda f, s: judges.faster(f, s, [WORD]))(evidence())
    assert judged.verdict == NOT_COMPARABLE and "missing here: grpc-go" in judged.why


def test_ranking_holds_in_part_when_one_pair_is_out_of_order():
    tiers = (("grpc-go",), ("grpc-py",), ("rest-fastapi", "rest-warp"))
    w = "predictions.get"
    groups = [trials("grpc-go", w, 1.0, clients=100), trials("grpc-py", w, 2.0, clients=100),
              trials("rest-fastapi", w, 4.0, clients=100)]
    ordered = judges.ranking(tiers, ["predictions.*"])(evidence(*groups, trials("rest-warp", w, 4.0, clients=100)))
    broken = judges.ranking(tiers, ["predictions.*"])(evidence(*groups, trials("rest-warp", w, 1.0, clients=100)))
    assert ordered.verdict == HOLDS and "at 100 clients" in ordered.rule
    assert ordered.measured[0].startswith("predictions.get x100 mean: grpc-go")
    assert broken.verdict == PARTLY and broken.share == "2 of 3 pairs"
    assert "the opposite for rest-warp/grpc-py on predictions.get" in broken.why


def test_bytes_growth_compares_bytes_per_call():
    def with_bytes(contender, workload, payload):
        cells = trials(contender, workload)
        for cell in cells:
            cell.wire_in_bytes, cell.wire_in_packets, cell.wire_out_bytes, cell.wire_out_packets = payload, 0, 0, 0
        return cells
    small, large = "hprpc.large128", "hprpc.large8192"
    ev = evidence(with_bytes("grpc-py", small, 300 * 700), with_bytes("grpc-py", large, 300 * 50_000),
                  with_bytes("tagless", small, 300 * 600), with_bytes("tagless", large, 300 * 33_000))
    judged = judges.bytes_growth("grpc-py", "tagless", small, large, "tags")(ev)
    assert judged.verdict == HOLDS
    assert judged.measured == ("grpc-py: 700 -> 50,000 B/call", "tagless: 600 -> 33,000 B/call")
    assert "TCP payload bytes per call" in judged.rule


def test_usp_tuples_hold_in_part_when_they_are_not_slower_than_grpc():
    d = "usp.distance"
    # judged without Nagle: the nodelay twins of rpyc and rpyc-tuple
    closed = finding("usp2018", "Passing tuples", trials("grpc-py", d), trials("rpyc-nodelay", d, 10.0),
                     trials("rpyc-tuple-nodelay", d, 1.5))
    equal = finding("usp2018", "Passing tuples", trials("grpc-py", d), trials("rpyc-nodelay", d, 10.0),
                    trials("rpyc-tuple-nodelay", d, 1.0, noise=SHUFFLED))
    assert closed.verdict == HOLDS and len(closed.measured) == 2
    assert equal.verdict == PARTLY and equal.said == "holds for 1 of 2 parts"
    assert "not significant for still slower than gRPC" in equal.why


def test_cs6650_questions_are_answered_yes_no_or_in_part():
    stream = "cs6650.stream"
    found = finding("cs6650", "Open question: is a word inverted faster on one bidirectional stream",
                    trials("grpc-py", WORD, 3.0), trials("grpc-py", stream),
                    trials("rest-fastapi", WORD, 3.0), trials("rest-fastapi", stream, 3.0))
    assert found.verdict == PARTLY and found.said == "yes, for 1 of 2 contenders"
    assert found.measured[0].startswith("grpc-py unary/stream mean per word: 3.00x [")
    parallel = finding("cs6650", "Open question: under parallel requests",
                       trials("grpc-py", WORD, clients=8), trials("rest-fastapi", WORD, 0.5, clients=8))
    assert parallel.verdict == FAILS and parallel.said == "no"


def test_cs6650_resource_cost_is_cpu_per_call_not_latency():
    same_latency = (trials("grpc-py", WORD, 1.0, cpu=1.0), trials("rest-fastapi", WORD, 1.0, cpu=2.0))
    cost = finding("cs6650", "Open question: does gRPC cost less CPU per call", *same_latency)
    speed = finding("cs6650", "Exp. 3", *same_latency)
    assert cost.verdict == HOLDS and cost.said == "yes"
    assert cost.measured[0].startswith("rest-fastapi/grpc-py CPU per call (client + server) cs6650.word x1: 2.00x")
    assert "uses 1.82 times as much CPU per call as" in cost.rule
    assert speed.verdict == UNDECIDED and speed.said == "cannot tell"


def test_infobip_http_catches_up_and_the_lead_shrinks_over_the_network():
    json, mml = "rest-jackson", "typed-json"
    loopback = (trials(mml, "infobip.items0"), trials(json, "infobip.items0", 2.0),
                trials(mml, "infobip.items10"), trials(json, "infobip.items10", 2.0),
                trials(mml, "infobip.items100"), trials(json, "infobip.items100", 1.1))
    network = (trials(mml, "infobip.items0", link="100mbit"), trials(json, "infobip.items0", 1.2, link="100mbit"),
               trials(mml, "infobip.items10", link="100mbit"), trials(json, "infobip.items10", 2.0, link="100mbit"))
    catches_up = finding("infobip2016", "Localhost: HTTP/JSON catches up", *loopback)
    shrinks = finding("infobip2016", "Network (HAProxy; here a 100 Mbit/s LAN link): MML's lead", *loopback,
                      *network)
    assert catches_up.verdict == HOLDS and catches_up.measured[0].startswith("x1: JSON/MML mean 2.00x [")
    assert shrinks.verdict == PARTLY and shrinks.said == "holds for 1 of 2 cells"
    assert "not significant for infobip.items10 x1" in shrinks.why


def test_hprpc_judges_each_language_pair_against_the_seeds_percentage():
    hello = "hprpc.hello"
    found = finding("hprpc2016", "SayHello", trials("tagless", hello), trials("grpc-py", hello, 1.1),
                    trials("tagless-go", hello), trials("grpc-go", hello, 1.5))
    assert found.verdict == PARTLY and found.said == "holds for 1 of 2 pairs"
    assert "grpc-go/tagless-go: does not hold: " in found.why and "not about 1.093x" in found.why


def test_every_finding_has_lines_a_verdict_and_a_rule():
    groups = (trials("grpc-py", WORD), trials("rest-fastapi", WORD, 2.0))
    for name, suite in SUITES.items():
        for f in findings(suite, document(*groups), {}):
            assert isinstance(f.measured, tuple) and all("|" not in line for line in f.measured)
            assert f.verdict in VERDICTS and f.said and f.why and f.rule, (name, f.claim)
