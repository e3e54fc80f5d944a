"""The operands of a claim's rule: a system's statistic in one setting (`Measure`, `Growth`), the ratio
of two (`Comparison`, judged by one form), and how such a ratio changed between settings (`Contrast`).
Each lists the measured cells it reads, and says why one was not measured here."""

from __future__ import annotations

from dataclasses import dataclass

from rpcarena.analysis import stats
from rpcarena.suites.evidence import BYTES, RSS, TRIMMED_MEAN, Evidence
from rpcarena.suites.forms import DIRECTION, Form
from rpcarena.suites.setting import LOOPBACK, Setting

# What each statistic is called, and how its ratio reads ('1.82x means A ... B').
MEASURES = {"median": ("median latency", "takes 1.82 times as long as"),
            "p99": ("p99 latency", "takes 1.82 times as long as"),
            "mean": ("mean latency", "takes 1.82 times as long as"),
            TRIMMED_MEAN: ("mean latency of the calls from p2 to p98", "takes 1.82 times as long as"),
            "cpu_us_per_call": ("CPU per call (client + server)", "uses 1.82 times as much CPU per call as"),
            RSS: ("server peak RSS", "holds 1.82 times as much memory as"),
            BYTES: ("growth of TCP payload bytes per call", "grows by 1.82 times as many bytes as")}
NeededCell = tuple[str, str, int, Setting]  # system, workload, clients, setting


@dataclass(frozen=True)
class Measure:
    """One system's statistic on a workload at a level, in a setting: one value per trial."""

    system: str
    workload: str
    clients: int = 1
    where: Setting = LOOPBACK
    statistic: str = "mean"

    @property
    def at(self) -> str:
        return f"{self.workload} x{self.clients}"

    def values(self, ev: Evidence) -> list[float]:
        return ev.values(self.system, self.workload, self.clients, self.where, self.statistic)

    def cells(self) -> tuple[NeededCell, ...]:
        return ((self.system, self.workload, self.clients, self.where),)

    def invalid(self, ev: Evidence, seed_had_nagle: bool) -> str | None:
        return ev.invalid(self.system, self.workload, self.clients, self.where, self.statistic, seed_had_nagle)

    def absent(self, ev: Evidence) -> list[tuple[str, str]]:
        """(what, why) for this operand's cells that were not measured here."""
        if self.values(ev):
            return []
        return [(f"{self.system} on {self.at}", ev.absent(self.system, self.workload, self.clients, self.where))]


@dataclass(frozen=True)
class Growth(Measure):
    """A system's TCP payload bytes per call from the `workload` to the `larger` one, trial by trial."""

    larger: str = ""
    statistic: str = BYTES

    @property
    def at(self) -> str:
        return f"{self.workload} -> {self.larger}"

    def values(self, ev: Evidence) -> list[float]:
        small, large = (ev.by_trial(self.system, w, self.clients, self.where, BYTES) for w in (self.workload,
                                                                                              self.larger))
        return [large[t] - small[t] for t in small if t in large and large[t] > small[t]]

    def cells(self) -> tuple[NeededCell, ...]:
        return tuple((self.system, w, self.clients, self.where) for w in (self.workload, self.larger))

    def invalid(self, ev: Evidence, seed_had_nagle: bool) -> str | None:
        return next((why for w in (self.workload, self.larger)
                     if (why := ev.invalid(self.system, w, self.clients, self.where, BYTES))), None)

    def absent(self, ev: Evidence) -> list[tuple[str, str]]:
        if self.values(ev):
            return []
        gone = [(f"{self.system} on {w} x{self.clients}", ev.absent(self.system, w, self.clients, self.where))
                for w in (self.workload, self.larger) if not ev.get(self.system, w, self.clients, self.where)]
        return gone or [(f"{self.system} on {self.at}", "bytes on the wire not measured here")]


@dataclass(frozen=True)
class Comparison:
    """slower / faster of one statistic, which the claim says is above 1 (or, for an equivalence, near
    1), judged by `form`; `full_only`: a level that --quick leaves out."""

    slower: Measure
    faster: Measure
    form: Form = DIRECTION
    full_only: bool = False

    @property
    def name(self) -> str:
        """'rest-go/grpc-go cs6650.word x1': what differs between the two sides as A/B, then what they share
        (the place and the sharing of connections when they are not loopback and one each)."""
        sides = [(m.system, m.at, m.where.place, m.where.sharing) for m in (self.slower, self.faster)]
        differ = [i for i in range(4) if sides[0][i] != sides[1][i]]
        plain = (LOOPBACK.place, LOOPBACK.sharing)
        lead = [] if 0 in differ else [sides[0][0]]  # one system compared with itself: named first
        same = [sides[0][i] for i in range(1, 4) if i not in differ and sides[0][i] not in plain]
        head = "/".join(" ".join(side[i] for i in differ) for side in sides)
        return " ".join([*lead, head, *same])

    @property
    def statistic(self) -> str:
        return self.slower.statistic

    @property
    def where(self) -> str:
        """Its setting in words, or the two it compares ('loopback, 1 connection shared against one each')."""
        a, b = self.slower.where, self.faster.where
        if a == b:
            return a.name
        return f"{a.place}, {a.sharing} against {b.sharing}" if a.place == b.place else f"{a.name} against {b.name}"

    def ratio(self, ev: Evidence) -> stats.Ratio | None:
        top, bottom = self.slower.values(ev), self.faster.values(ev)
        return stats.trial_ratio(top, bottom) if top and bottom else None

    def invalid(self, ev: Evidence, seed_had_nagle: bool = False) -> str | None:
        return self.slower.invalid(ev, seed_had_nagle) or self.faster.invalid(ev, seed_had_nagle)

    def absent(self, ev: Evidence) -> list[tuple[str, str]]:
        return self.slower.absent(ev) + self.faster.absent(ev)

    def cells(self) -> tuple[NeededCell, ...]:
        return self.slower.cells() + self.faster.cells()

    def reading(self) -> str:
        name, reads = MEASURES[self.statistic]
        return f"{name} {self.slower.system}/{self.faster.system} (1.82x means {self.slower.system} {reads} " \
               f"{self.faster.system})"


@dataclass(frozen=True)
class Contrast:
    """How a ratio changed between two settings: `before` / `after` (a lead 2x on loopback and 1.5x over a
    link is 1.33x: shrunk), over independent trials (`stats.quotient`)."""

    before: Comparison
    after: Comparison
    form: Form = DIRECTION

    @property
    def name(self) -> str:
        b, a = self.before.slower, self.after.slower
        return f"{b.system}/{self.before.faster.system} {b.at}: {b.where.name} / {a.where.name}"

    @property
    def full_only(self) -> bool:
        return self.before.full_only or self.after.full_only

    @property
    def statistic(self) -> str:
        return self.before.statistic

    @property
    def where(self) -> str:
        return f"{self.before.where} against {self.after.where}"

    def ratio(self, ev: Evidence) -> stats.Ratio | None:
        before, after = self.before.ratio(ev), self.after.ratio(ev)
        return stats.quotient(before, after) if before and after else None

    def invalid(self, ev: Evidence, seed_had_nagle: bool = False) -> str | None:
        return self.before.invalid(ev, seed_had_nagle) or self.after.invalid(ev, seed_had_nagle)

    def absent(self, ev: Evidence) -> list[tuple[str, str]]:
        return self.before.absent(ev) + self.after.absent(ev)

    def cells(self) -> tuple[NeededCell, ...]:
        return self.before.cells() + self.after.cells()

    def reading(self) -> str:
        return (f"{self.before.reading()}, in one setting over the other (1.33x: the ratio is 1.33 times as large "
                f"{self.before.slower.where.name} as {self.after.slower.where.name})")


Member = Comparison | Contrast
