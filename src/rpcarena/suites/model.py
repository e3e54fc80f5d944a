"""What a suite is: a seed's design as data (parts to run, claims to check), and findings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rpcarena.analysis import stats
from rpcarena.analysis.stats import MIN_TRIALS

# The verdicts, each following from the evidence (suites.judges says how):
HOLDS = "holds"  # significant in the seed's direction in every cell, and of the seed's size where it gave one
MAGNITUDE = "holds in direction, magnitude differs"  # significant as the seed says, wholly outside its size
# for a majority of the cells after a Holm correction over them, the opposite only in the minority:
# `Judgement.share` says which
PARTLY = "holds in part"
MIXED = "mixed"  # significant both ways (after Holm), neither way for a majority
FAILS = "does not hold"  # significant the other way, and in the seed's direction nowhere
UNDECIDED = "cannot tell"  # not significant, too few trials, an interval straddling the seed's size, or a
# diagnosis that invalidates the cell (client-bound, Nagle where the seed had none, bimodal under a median)
NOT_COMPARABLE = "not comparable here"  # with the reason
VERDICTS = (HOLDS, MAGNITUDE, PARTLY, MIXED, FAILS, UNDECIDED, NOT_COMPARABLE)
# What a verdict says when the claim is one of the seed's open questions.
ANSWERS = {HOLDS: "yes", MAGNITUDE: "yes", PARTLY: "yes, for {share}", MIXED: "mixed", FAILS: "no"}


@dataclass(frozen=True)
class Measured:
    """One pair or cell a judge looked at: which (`what`: 'rest-fastapi/grpc-py cs6650.word x1'), the
    statistic ('mean latency'), its ratio over trials with the 95% interval, and where it stands for
    the claim (`significance`: 'significant', 'the opposite', 'not significant', or why it cannot
    tell). What is not a ratio (bytes per call, a p99 per trial) is a `value` in words."""

    what: str
    statistic: str = ""
    ratio: stats.Ratio | None = None
    significance: str = ""
    value: str = ""

    @property
    def shown(self) -> str:
        """The number: '2.00x [1.90, 2.10]', '2.00x (1 and 1 trials, no interval)', or the value."""
        r = self.ratio
        if r is None:
            return self.value
        if r.interval is None:
            return f"{r.estimate:.2f}x ({r.trials[0]} and {r.trials[1]} trials, no interval)"
        return r.text()

    def text(self) -> str:
        """One line: 'mean latency rest-fastapi/grpc-py cs6650.word x1: 2.00x [1.90, 2.10], significant'."""
        head = f"{self.statistic} {self.what}" if self.statistic else self.what
        tail = f", {self.significance}" if self.significance else ""
        return f"{head}: {self.shown}{tail}"


@dataclass(frozen=True)
class Judgement:
    """What this run measured for a claim (one `Measured` per pair or cell), the verdict, why, the rule
    it was judged by (the statistic, its direction and its threshold), and for PARTLY where it holds."""

    measured: tuple[Measured, ...]
    verdict: str
    why: str
    rule: str = ""
    share: str = ""  # PARTLY: "4 of 5 pairs"

    def says(self, question: bool = False) -> str:
        """The verdict in words: 'holds for 4 of 5 pairs'; for an open question 'yes, for 4 of 5 pairs'."""
        if question and self.verdict in ANSWERS:
            return ANSWERS[self.verdict].format(share=self.share)
        return f"holds for {self.share}" if self.verdict == PARTLY else self.verdict


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
    repeat: int = MIN_TRIALS  # trials per cell: fewer cannot show a difference (suites.judges)
    via: str | None = None  # "haproxy": HTTP through a proxy, as RunConfig.via
    link: str | None = None  # e.g. "100mbit": an emulated network, as RunConfig.link
    client_drivers: tuple[str, ...] | None = None  # who drives, as --client; None: each contender's own
    connections: int | None = None  # the clients share this many connections, as --connections; None: one each


@dataclass(frozen=True)
class Claim:
    """A published claim of the seed, with the seed's numbers, and how to judge it from a run.

    `question`: the seed asked it without answering; its finding answers yes, no, or in part."""

    text: str
    seed: str
    judge: Callable[..., Judgement] = field(repr=False)
    question: bool = False


@dataclass(frozen=True)
class Finding:
    """A claim beside this run: `verdict` is one of VERDICTS, `said` the verdict in words."""

    claim: str
    seed: str
    measured: tuple[Measured, ...]
    verdict: str
    said: str
    why: str
    rule: str


@dataclass(frozen=True)
class Suite:
    """A seed turned into one command: `rpcarena suite NAME`."""

    name: str
    seed: str
    summary: str
    parts: tuple[Part, ...]
    claims: tuple[Claim, ...]
    # how long `--quick` took, whole, on 2 idle CPUs (a measured figure the help repeats; None: not timed)
    quick_minutes: float | None = None

    @property
    def contenders(self) -> list[str]:
        return list(dict.fromkeys(c for p in self.parts for c in p.contenders))

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(w for p in self.parts for w in p.workloads))
