"""What a suite is: a seed's design as data (parts to run, claims to check), and findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rpcarena.analysis import stats
from rpcarena.analysis.stats import MIN_TRIALS
from rpcarena.suites import vocabulary
from rpcarena.suites.setting import Setting

if TYPE_CHECKING:
    from rpcarena.suites.operands import NeededCell
    from rpcarena.suites.rules import Judge


@dataclass(frozen=True)
class Measured:
    """One cell a rule looked at: which (`what`: 'rest-fastapi/grpc-py cs6650.word x1'), the statistic
    ('mean latency'), its ratio over trials with the 95% interval, and where it stands for the claim
    after the family's correction (`significance`: 'shown', 'the opposite', 'not significant', ..., or
    'beside: ...' for a row shown and not judged). What is not a ratio (a share of calls per trial) is
    a `value` in words."""

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
    """What this run measured for a claim (one `Measured` per cell, and what is shown beside), the verdict
    (a word of `vocabulary`), why, the rule it was judged by, and for holds in part and mixed how many
    cells showed the claim."""

    measured: tuple[Measured, ...]
    verdict: str
    why: str
    rule: str = ""
    share: str = ""  # "3 of 4 cells"

    def says(self) -> str:
        """The verdict in words, the same for a claim and a question: 'holds in part (3 of 4 cells)'."""
        if self.verdict == vocabulary.PARTLY:
            return f"{self.verdict} ({self.share})"
        if self.verdict == vocabulary.MIXED:
            return f"{self.verdict} ({self.share} show it)"
        return self.verdict


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

    @property
    def setting(self) -> Setting:
        """Where the part's cells are measured, as its claims name it."""
        return Setting(self.link, self.connections)


@dataclass(frozen=True)
class Claim:
    """A published claim of the seed, with the seed's numbers, and the rule that judges it from a run
    (`suites.rules`: its form, operands, cells, setting and family).

    `question`: the seed asked it without answering; it is judged with the same rule and words."""

    text: str
    seed: str
    rule: Judge = field(repr=False)
    question: bool = False


@dataclass(frozen=True)
class Finding:
    """A claim beside this run: `verdict` is a word of `vocabulary.VERDICTS`, `said` the verdict in words."""

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
    # how long `--quick` takes, whole, on 2 idle CPUs: measured (the help repeats it), or estimated from its
    # cells and each kind of cell's cost (benchmarks/quick_estimate.py) until a whole run measures it
    quick_minutes: float | None = None
    quick_estimated: bool = False

    @property
    def contenders(self) -> list[str]:
        return list(dict.fromkeys(c for p in self.parts for c in p.contenders))

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(w for p in self.parts for w in p.workloads))

    def cells(self, quick: bool = False) -> list[NeededCell]:
        """Every measured cell (system, workload, clients, setting) some claim's rule reads."""
        return list(dict.fromkeys(cell for claim in self.claims for cell in claim.rule.cells(quick)))
