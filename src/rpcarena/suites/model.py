"""What a suite is: a seed's design as data (parts to run, claims to check), and findings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

HOLDS = "holds"
FAILS = "does not hold"
NOT_COMPARABLE = "not comparable here"


@dataclass(frozen=True)
class Judgement:
    """What this run measured for a claim, the verdict, and why."""

    measured: str
    verdict: str
    why: str


@dataclass(frozen=True)
class Part:
    """One arena of a seed's design: these systems, on these workloads, at these concurrencies."""

    title: str
    contenders: tuple[str, ...]
    workloads: tuple[str, ...]
    calls: int
    quick_calls: int
    clients: tuple[int, ...] = (1,)
    quick_clients: tuple[int, ...] | None = None
    warmup_s: float = 1.0
    quick_warmup_s: float = 0.2
    repeat: int = 1
    via: str | None = None  # "haproxy": HTTP through a proxy, as RunConfig.via
    link: str | None = None  # e.g. "100mbit": an emulated network, as RunConfig.link
    client_drivers: tuple[str, ...] | None = None  # who drives, as --client; None: each contender's own


@dataclass(frozen=True)
class Claim:
    """A published claim of the seed, with the seed's numbers, and how to judge it from a run."""

    text: str
    seed: str
    judge: Callable[..., Judgement] = field(repr=False)


@dataclass(frozen=True)
class Finding:
    claim: str
    seed: str
    measured: str
    verdict: str
    why: str


@dataclass(frozen=True)
class Suite:
    """A seed turned into one command: `rpcarena suite NAME`."""

    name: str
    seed: str
    summary: str
    parts: tuple[Part, ...]
    claims: tuple[Claim, ...]

    @property
    def contenders(self) -> list[str]:
        return list(dict.fromkeys(c for p in self.parts for c in p.contenders))

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(w for p in self.parts for w in p.workloads))
