"""When each call should start, for open-loop load (wrk2's pacing).

A pacer yields intended start offsets in nanoseconds from the start of the
measured phase. Latency is then measured from the intended start, so a server
that stalls cannot hide the calls that piled up behind the stall.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

ARRIVALS = ("constant", "poisson")


def offsets_ns(rate_per_s: float, arrival: str = "constant", seed: int = 1) -> Iterator[int]:
    """Intended start offsets of successive calls at `rate_per_s` calls per second."""
    if rate_per_s <= 0:
        raise ValueError("rate must be positive")
    if arrival not in ARRIVALS:
        raise ValueError(f"arrival must be one of {ARRIVALS}")
    interval = 1e9 / rate_per_s
    if arrival == "constant":
        k = 0
        while True:
            yield round(k * interval)
            k += 1
    rng = random.Random(seed)
    t = 0.0
    while True:
        yield round(t)
        t += rng.expovariate(1.0) * interval


def client_offsets_ns(rate_per_s: float, arrival: str, client: int, clients: int,
                      seed: int = 1) -> Iterator[int]:
    """The share of one client among `clients`: every clients-th call of the global schedule."""
    for k, offset in enumerate(offsets_ns(rate_per_s, arrival, seed)):
        if k % clients == client:
            yield offset
