"""cs6650: gRPC vs REST for real-time string inversion, one call per word (seed 003, English).

The seed's language is not fixed here, so each claim is judged on every gRPC/REST pair of one
language that is available (Python always; Go, Rust, Java when their workers are built).
"""

from __future__ import annotations

from rpcarena.analysis import stats
from rpcarena.suites.evidence import Evidence, ratio_text
from rpcarena.suites.judges import every_pair, faster, not_comparable, on_network
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, Claim, Judgement, Part, Suite

PAIRS = (("grpc-py", "rest-fastapi"), ("grpc-go", "rest-go"), ("grpc-tonic", "rest-warp"),
         ("grpc-java", "rest-jackson"))
WORD, TEXT, STREAM = ("cs6650.word",), ("cs6650.text",), ("cs6650.stream",)
STREAMERS = ("grpc-py", "grpc-go", "grpc-tonic", "grpc-java", "rest-fastapi")  # rest-fastapi: a WebSocket


def per_pair(workloads: tuple[str, ...], statistic: str = "mean", seed_ratio: float | None = None):
    """The claim judged for each language pair measured; holds when it holds for every one."""
    return every_pair(PAIRS, lambda grpc, rest: faster(grpc, rest, workloads, statistic, seed_ratio=seed_ratio))


def streaming_gain(ev: Evidence) -> Judgement:
    """Per contender: one unary call per word against the same words on one stream (mean, per word)."""
    found = {}
    for contender in STREAMERS:
        word, stream = ev.get(contender, WORD[0]), ev.get(contender, STREAM[0])
        if word is not None and stream is not None:
            found[contender] = stats.ratio(word.bootstrap(), stream.bootstrap(), "mean")
    if not found:
        return Judgement("-", NOT_COMPARABLE, "no contender was measured both ways")
    measured = " | ".join(f"{c} unary/stream per word {ratio_text(ci)}" for c, ci in found.items())
    faster_on_stream = [c for c, ci in found.items() if ci.low > 1]
    slower_on_stream = [c for c, ci in found.items() if ci.high < 1]
    if len(faster_on_stream) == len(found):
        return Judgement(measured, HOLDS, "every contender answers a word faster on its stream")
    return Judgement(measured, FAILS, f"faster on a stream: {', '.join(faster_on_stream) or 'none'}; "
                                      f"slower: {', '.join(slower_on_stream) or 'none'}; the rest not significant")


LINK = "cloud-cross-region"  # the seed's client to its cloud server: ~90 ms round trips (docs/network.md)
_SYSTEMS = tuple(s for pair in PAIRS for s in pair)

SUITE = Suite(
    name="cs6650", seed="003 cs6650 (gRPC vs REST, string inversion)",
    summary="Invert one word per call (the Macbeth passage) and the whole text in one call; gRPC vs REST pairs",
    parts=(Part("Exp. 1/3: one call per word, no pause; and the seed's open question, under parallel "
                "requests", _SYSTEMS, WORD, calls=300, quick_calls=135, repeat=3, clients=(1, 8, 32),
                quick_clients=(1,)),
           Part("Exp. 2: the whole text in one call", _SYSTEMS, TEXT, calls=300, quick_calls=100),
           Part("Open question: the words on one bidirectional stream (gRPC) or WebSocket (REST)",
                STREAMERS, STREAM, calls=300, quick_calls=135, repeat=3),
           Part(f"Exp. 1: one call per word across a {LINK} link", _SYSTEMS, WORD, calls=300, quick_calls=40,
                link=LINK),
           Part(f"Exp. 2: the whole text in one call across a {LINK} link", _SYSTEMS, TEXT, calls=100,
                quick_calls=20, link=LINK)),
    claims=(
        Claim(f"Exp. 1 (network; here a {LINK} link): gRPC about 2x faster per word",
              "REST avg 187.2 ms, p99 497.2, CV 33%; gRPC avg 93.7 ms, p99 171.4, CV 24%",
              on_network(per_pair(WORD, seed_ratio=2.0))),
        Claim(f"Exp. 2 (network; here a {LINK} link): the whole text in one call, gRPC about 2x faster",
              "REST 195.5 ms, gRPC 101.1 ms", on_network(per_pair(TEXT, seed_ratio=2.0))),
        Claim("Exp. 3 (local, no network): gRPC about 10x faster than REST per word",
              "REST avg 4.04 ms, gRPC 0.41 ms", per_pair(WORD, seed_ratio=10.0)),
        Claim("Open question, tested here: a word is inverted faster on one bidirectional stream than "
              "by one unary call per word", "asked, not measured by the seed", streaming_gain),
        Claim("Open question: resource cost of each (CPU per call)", "not measured by the seed",
              not_comparable("the seed published no numbers to compare; CPU per call is in the tables below",
                             per_pair(WORD, statistic="mean"))),
    ),
)
