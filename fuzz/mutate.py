"""A bounded, deterministic random-mutation loop: the fuzz targets' CI mode (no atheris needed).

Seeds are valid encodings of every canonical workload; each input is a seed
with a few mutations (bit flips, cuts, insertions, huge length fields, splices).
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable, Iterator

HUGE = (0xFFFFFFFF, 0x7FFFFFFF, 0x10000000, 0x04000001, 65536, 255)


def mutate(data: bytes, rng: random.Random, seeds: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(6)
        if choice == 0 and buf:
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        elif choice == 1 and buf:
            del buf[rng.randrange(len(buf)):]
        elif choice == 2:
            i = rng.randrange(len(buf) + 1)
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif choice == 3 and len(buf) >= 4:
            i = rng.randrange(len(buf) - 3)
            buf[i:i + 4] = struct.pack("<I", rng.choice(HUGE))
        elif choice == 4:
            other = rng.choice(seeds)
            buf = buf[:rng.randrange(len(buf) + 1)] + other[rng.randrange(len(other) + 1):]
        elif buf:
            i = rng.randrange(len(buf))
            buf[i] = rng.choice(b"\x00\xff{}[]\":,0-e.")
    return bytes(buf)


def inputs(seeds: list[bytes], count: int, seed: int = 0) -> Iterator[bytes]:
    rng = random.Random(seed)
    for _ in range(count):
        yield mutate(rng.choice(seeds), rng, seeds)


def run(target: Callable[[bytes], None], seeds: list[bytes], count: int, seed: int = 0) -> int:
    """Feed `count` mutated inputs (and the seeds) to the target; its own asserts do the checking."""
    for data in seeds:
        target(data)
    n = 0
    for data in inputs(seeds, count, seed):
        target(data)
        n += 1
    return n + len(seeds)
