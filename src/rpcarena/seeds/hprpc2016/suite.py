"""hprpc2016: tagless schema-order serialization (HPRPC) vs gRPC/protobuf (seed 002, English).

The seed reports total time of 1,000 calls, so the statistic here is the mean latency
(total = 1,000 x mean). "X% better" is read as gRPC/HPRPC about 1 + X ("gRPC's total transaction
time is 21.6% higher"): the ratio inside the band about it, or direction only, magnitude differs.

The seed puts its gaps on the tags ("Protobuf tags the string parameter ... while Kodosis does not
use tags"), so each claim is judged on the pair that differs only in them: protobuf against tagless
over the same call-id frames and connections (proto-frames/tagless, proto-frames-go/tagless-go).
Beside it, not judged: the transport's share (gRPC's HTTP/2 against the same protobuf messages in
frames) and the seed's whole pair (gRPC against tagless). Confound left, named in the claims:
Average and GetRandNums carry mostly negative int32 in a packed repeated field, which protobuf
writes as 10-byte varints under one tag, so their gap is varint width more than tags; the
question "is it the tags?" leaves them out. LargeData is the seed's echo: every server decodes
every field and encodes it back (the Python tagless server too: its echo makes Python ints of a
flat message's fields and packs them again, rather than returning the bytes it was sent).
"""

from __future__ import annotations

from rpcarena.seeds.hprpc2016.workloads import LARGE_SIZES
from rpcarena.suites.forms import DIRECTION, About, Form
from rpcarena.suites.model import Claim, Part, Suite
from rpcarena.suites.operands import Comparison, Growth
from rpcarena.suites.rules import Beside, Rule, pairs
from rpcarena.suites.setting import LOOPBACK, Setting

TAGLESS = ("tagless", "tagless-go")
PROTO_FRAMES = ("proto-frames", "proto-frames-go")
GRPC = ("grpc-py", "grpc-go", "grpc-tonic", "grpc-java")
# slower/faster per language: the tags alone (the same frames and connections, protobuf or tagless),
# the transport alone (the same protobuf messages, HTTP/2 or frames), and the seed's whole pair.
ENCODING = (("proto-frames", "tagless"), ("proto-frames-go", "tagless-go"))
TRANSPORT = (("grpc-py", "proto-frames"), ("grpc-go", "proto-frames-go"))
SEEDS_PAIR = (("grpc-py", "tagless"), ("grpc-go", "tagless-go"))
SIZES = tuple(str(n) for n in LARGE_SIZES)
WORKLOADS = (("hprpc.hello",) + tuple(f"hprpc.average{n}" for n in (10, 100, 1000, 10000))
             + tuple(f"hprpc.randnums{n}" for n in (10, 100, 1000, 10000)) + tuple(f"hprpc.large{n}" for n in SIZES))
LINK = "lan"  # the seed does not say where it ran; a LAN shows what the wire adds (docs/network.md)
NETWORK_WORKLOADS = ("hprpc.hello", "hprpc.average10000", "hprpc.randnums10000", "hprpc.large8192")
NEGATIVE = "(confound: mostly negative int32 in a packed field, 10-byte varints in protobuf, not tags alone)"
TRANSPORT_SHARE = "the transport's share: gRPC's HTTP/2 against the same protobuf messages in call-id frames"
WHOLE = "the seed's whole pair: gRPC against tagless (transport, framing and encoding together)"


def _beside(workload: str, where: Setting) -> tuple[Beside, ...]:
    return (tuple(Beside(c, TRANSPORT_SHARE) for c in pairs(TRANSPORT, (workload,), where=where))
            + tuple(Beside(c, WHOLE) for c in pairs(SEEDS_PAIR, (workload,), where=where)))


def _tags(workload: str, form: Form, where: Setting = LOOPBACK) -> Rule:
    """The seed's gap judged on the tags alone, in both languages (one family), the transport's share and
    the seed's whole pair beside."""
    return Rule(pairs(ENCODING, (workload,), form, where=where), beside=_beside(workload, where))


def _growth(slower: str, faster: str) -> Comparison:
    return Comparison(Growth(slower, "hprpc.large128", larger="hprpc.large8192"),
                      Growth(faster, "hprpc.large128", larger="hprpc.large8192"))


def _bytes_grow() -> Rule:
    """protobuf's payload per call grows faster than tagless's from 128 to 8192 fields, trial by trial."""
    return Rule(tuple(_growth(*pair) for pair in ENCODING),
                beside=tuple(Beside(_growth(*pair), WHOLE) for pair in SEEDS_PAIR))


SUITE = Suite(
    name="hprpc2016", seed="002 hprpc2016 (tagless serialization vs gRPC)",
    summary="SayHello, Average(N), GetRandNums(N), LargeData128..8192: tagless vs gRPC; 1,000 calls each",
    # --quick, whole, on 2 idle CPUs: 2.2 measured 2026-11-29 (144 cells, none Java: no claim reads one)
    quick_minutes=2,
    parts=(Part("1,000 calls per message type and size", TAGLESS + PROTO_FRAMES + GRPC, WORKLOADS,
                calls=1000, quick_calls=200),
           Part(f"the same across a {LINK} link", TAGLESS + PROTO_FRAMES + GRPC, NETWORK_WORKLOADS,
                calls=1000, quick_calls=100, link=LINK)),
    claims=(
        Claim("SayHello: HPRPC 9.3% faster than gRPC, as protobuf tags the string and tagless does not (judged "
              "on the tags alone: proto-frames against tagless)", "gRPC 305 ms vs HPRPC 279 ms per 1,000 calls",
              _tags("hprpc.hello", About(1.093))),
        Claim(f"Average(N int32): HPRPC 8.5% better at N=10 {NEGATIVE}", "8.5% at N=10",
              _tags("hprpc.average10", About(1.085))),
        Claim(f"Average(N int32): gRPC 21.6% slower at N=10,000 {NEGATIVE}", "21.6% at N=10,000",
              _tags("hprpc.average10000", About(1.216))),
        Claim(f"GetRandNums(N): HPRPC 12.9% better at N=10 {NEGATIVE}", "12.9% at 10",
              _tags("hprpc.randnums10", About(1.129))),
        Claim(f"GetRandNums(N): HPRPC 39.2% better at N=10,000 {NEGATIVE}", "39.2% at 10,000",
              _tags("hprpc.randnums10000", About(1.392))),
        Claim("SendRcvLargeData: HPRPC 2.7x better with 128 fields, each server echoing every field it decoded",
              "2.7x at 128", _tags("hprpc.large128", About(2.7))),
        Claim("SendRcvLargeData: HPRPC 12.5x better with 8192 fields, each server echoing every field it decoded",
              "12.5x at 8192", _tags("hprpc.large8192", About(12.5))),
        Claim("Bytes on the wire per message grow faster for protobuf than for HPRPC (per-field tags)",
              "figure 9d", _bytes_grow()),
        Claim("(rpcarena) Is it the tags? With the same frames and connections, tagless beats protobuf on "
              "messages without packed repeated fields (SayHello, LargeData128 and 8192)",
              "not in the seed: it blames the tags",
              Rule(pairs(ENCODING, ("hprpc.hello", "hprpc.large128", "hprpc.large8192"))), question=True),
        Claim("(rpcarena) Is it the transport? With the same protobuf messages, call-id frames beat gRPC's HTTP/2 "
              "(proto-frames vs gRPC: the transport alone)", "not in the seed",
              Rule(pairs(TRANSPORT, ("hprpc.hello", "hprpc.randnums10000", "hprpc.large8192"))), question=True),
        Claim(f"(rpcarena) Across a {LINK} link, HPRPC's lead with 8192 fields holds: the fewer bytes also cross "
              "the wire sooner", "not in the seed",
              _tags("hprpc.large8192", DIRECTION, Setting(LINK))),
    ),
)
