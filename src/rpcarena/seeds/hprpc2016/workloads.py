"""hprpc2016: tagless serialization vs gRPC; small calls, N numbers, LargeData128...8192."""

from __future__ import annotations

from rpcarena.protocol.semantics import CHECKSUM_SIZES, rand_nums
from rpcarena.workloads import register

PREFIX = "hprpc"
COUNTS = (10, 100, 1000, 10000)
LARGE_SIZES = (128, 256, 512, 1024, 2048, 4096, 8192)


def _large(size: int) -> dict:
    # Distinct, non-zero values of at most three varint bytes: proto3 would drop zeros.
    return {f"f{i}": (i * 2654435761) % 999_983 + 1 for i in range(1, size + 1)}


register(f"{PREFIX}.hello", "SayHello", "SayHello: small string request and response",
         lambda: [{"name": "world"}])
for _n in COUNTS:
    register(f"{PREFIX}.average{_n}", "Average", f"Average of {_n} int32, small response",
             lambda n=_n: [{"values": rand_nums(n, n)}])
for _n in COUNTS:
    register(f"{PREFIX}.randnums{_n}", "GetRandNums", f"GetRandNums: small request, {_n} int32 back",
             lambda n=_n: [{"count": n, "seed": 42}])
for _size in LARGE_SIZES:
    register(f"{PREFIX}.large{_size}", f"EchoLargeData{_size}",
             f"SendRcvLargeData: {_size} distinct int32 fields echoed", lambda s=_size: [_large(s)])
for _size in CHECKSUM_SIZES:
    register(f"{PREFIX}.checksum{_size}", f"ChecksumLargeData{_size}",
             f"LargeData{_size} in, the int32 sum of every field back: each codec decodes every field",
             lambda s=_size: [_large(s)])
