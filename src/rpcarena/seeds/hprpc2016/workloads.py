"""hprpc2016: tagless serialization vs gRPC; small calls, N numbers, LargeData128...8192."""

from __future__ import annotations

from functools import partial

from rpcarena.protocol.semantics import CHECKSUM_SIZES, rand_nums
from rpcarena.workloads import Message, Workload

PREFIX = "hprpc"
COUNTS = (10, 100, 1000, 10000)
LARGE_SIZES = (128, 256, 512, 1024, 2048, 4096, 8192)


def _large(size: int) -> list[Message]:
    # Distinct, non-zero values of at most three varint bytes: proto3 would drop zeros.
    return [{f"f{i}": (i * 2654435761) % 999_983 + 1 for i in range(1, size + 1)}]


def _average(n: int) -> list[Message]:
    return [{"values": rand_nums(n, n)}]


def _rand_nums(n: int) -> list[Message]:
    return [{"count": n, "seed": 42}]


WORKLOADS = (
    Workload(f"{PREFIX}.hello", "SayHello", "SayHello: small string request and response",
             lambda: [{"name": "world"}]),
    *(Workload(f"{PREFIX}.average{n}", "Average", f"Average of {n} int32, small response",
               partial(_average, n)) for n in COUNTS),
    *(Workload(f"{PREFIX}.randnums{n}", "GetRandNums", f"GetRandNums: small request, {n} int32 back",
               partial(_rand_nums, n)) for n in COUNTS),
    *(Workload(f"{PREFIX}.large{size}", f"EchoLargeData{size}",
               f"SendRcvLargeData: {size} distinct int32 fields echoed", partial(_large, size))
      for size in LARGE_SIZES),
    *(Workload(f"{PREFIX}.checksum{size}", f"ChecksumLargeData{size}",
               f"LargeData{size} in, the int32 sum of every field back: each codec decodes every field",
               partial(_large, size)) for size in CHECKSUM_SIZES),
)
