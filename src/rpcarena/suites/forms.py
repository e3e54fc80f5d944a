"""The grammar of claims: each form a seed's words can take, with the one test that judges it.

Every form reads a ratio over trials, written so that the claim says it is above 1 ("rest/grpc":
gRPC faster), and asks of it one-sided tests (`stats.one_sided`, Welch's t on the logarithms; at
2.5% each, the edges of the 95% interval): what shows the claim in a cell (`claim`), its direction
alone (`direction`), the opposite (`against`) and, where the seed gave a size, the size refuted
(`off`). `suites.family` corrects each over the claim's family and counts the cells.

- Direction: A faster than B. Shown when the ratio lies above 1; the opposite below 1.
- AtLeast(x): shown above x; the size refuted below x (still above 1: direction only).
- About(x): shown inside x's band (the excess over 1 within a factor 2: 10x is 5.5x to 19x), two
  one-sided tests at its edges; the size refuted wholly outside it.
- UpTo(x): the largest effect across the family is about x (inside the band: it reaches x's size,
  and goes no further), every other cell shows the direction. A win of any size is not enough.
- Equivalent(margin): within 1/margin to margin, by two one-sided tests (TOST) at the margin the
  seed's word implies; outside it (wholly) is "not equivalent". There is no direction.
- Ordering(tiers): A < B < C, each pair of neighbouring tiers a direction.
- ShareBelow(line): a share of calls under an absolute line; an absolute number says something only
  on the seed's own network, so it is never judged here (`rules.ShareRule`: not comparable, shown).
"""

from __future__ import annotations

from dataclasses import dataclass

from rpcarena.analysis import stats
from rpcarena.analysis.stats import Ratio

TOLERANCE = 2.0  # "about x": the excess over 1 within this factor


def band(seed_ratio: float) -> tuple[float, float]:
    """The ratios that are 'about' the seed's: its excess over 1 within a factor TOLERANCE."""
    excess = seed_ratio - 1
    return 1 + excess / TOLERANCE, 1 + excess * TOLERANCE


def _above(ratio: Ratio, bound: float) -> float | None:
    return stats.one_sided(ratio, bound, above=True)


def _below(ratio: Ratio, bound: float) -> float | None:
    return stats.one_sided(ratio, bound, above=False)


def _inside(ratio: Ratio, low: float, high: float) -> float | None:
    """Two one-sided tests: inside [low, high] is shown when both edges are (the larger p)."""
    a, b = _above(ratio, low), _below(ratio, high)
    return None if a is None or b is None else max(a, b)


def _outside(ratio: Ratio, low: float, high: float) -> float | None:
    """Wholly outside [low, high] on either side (the smaller p: the interval cannot lie on both)."""
    a, b = _below(ratio, low), _above(ratio, high)
    return None if a is None or b is None else min(a, b)


@dataclass(frozen=True)
class Direction:
    """A faster than B: the ratio above 1."""

    sized = False
    equivalence = False

    @property
    def tests(self) -> tuple[str, ...]:
        """The tests the form asks of a cell (each Holm-corrected over the family)."""
        return ("claim", "direction", "against") + (("off",) if self.sized else ())

    @property
    def words(self) -> str:
        return "direction"

    def claim(self, ratio: Ratio) -> float | None:
        return _above(ratio, 1.0)

    def direction(self, ratio: Ratio) -> float | None:
        return _above(ratio, 1.0)

    def against(self, ratio: Ratio) -> float | None:
        return _below(ratio, 1.0)

    def off(self, ratio: Ratio) -> float | None:
        return None

    def rule(self) -> str:
        return "direction (by any factor): shown when its interval lies above 1, the opposite below 1"


DIRECTION = Direction()


@dataclass(frozen=True)
class Ordering(Direction):
    """A < B < C: each system of a later tier slower than each of the tier before (each a direction)."""

    tiers: tuple[tuple[str, ...], ...] = ()

    @property
    def words(self) -> str:
        return "ordering " + " < ".join(" ~ ".join(tier) for tier in self.tiers)

    def rule(self) -> str:
        return (f"'{self.words}': each system of a later tier against each of the tier before, each shown when "
                "its interval lies above 1, the opposite below 1 (the systems of one tier are not compared)")


@dataclass(frozen=True)
class Sized(Direction):
    """A direction of the seed's size, `seed_ratio` read as its words say ('at least 2x', 'about 10x')."""

    seed_ratio: float = 2.0
    sized = True
    prefix = ""

    @property
    def words(self) -> str:
        return f"{self.prefix} {self.seed_ratio:g}x"


@dataclass(frozen=True)
class AtLeast(Sized):
    """A at least x times B: the ratio above x."""

    prefix = "at least"

    def claim(self, ratio: Ratio) -> float | None:
        return _above(ratio, self.seed_ratio)

    def off(self, ratio: Ratio) -> float | None:
        return _below(ratio, self.seed_ratio)

    def rule(self) -> str:
        return (f"'{self.words}': shown when its interval lies above {self.seed_ratio:g}x; above 1 but wholly "
                f"below {self.seed_ratio:g}x: direction only, magnitude differs; below 1: the opposite")


@dataclass(frozen=True)
class About(Sized):
    """A about x times B: the ratio inside x's band."""

    prefix = "about"

    @property
    def band(self) -> tuple[float, float]:
        return band(self.seed_ratio)

    def claim(self, ratio: Ratio) -> float | None:
        return _inside(ratio, *self.band)

    def off(self, ratio: Ratio) -> float | None:
        return _outside(ratio, *self.band)

    def rule(self) -> str:
        low, high = self.band
        return (f"'{self.words}': shown when its interval lies inside {low:.4g}x to {high:.4g}x (the excess over 1 "
                f"within a factor {TOLERANCE:g}); above 1 but wholly outside: direction only, magnitude differs; "
                "below 1: the opposite")


@dataclass(frozen=True)
class UpTo(Sized):
    """A up to x times B: the largest effect of the family about x, every other cell faster."""

    prefix = "up to"

    def largest(self) -> About:
        """The form of the family's largest effect (the cell of the highest estimate)."""
        return About(self.seed_ratio)

    def claim(self, ratio: Ratio) -> float | None:  # a cell other than the largest: its direction
        return _above(ratio, 1.0)

    def rule(self) -> str:
        low, high = band(self.seed_ratio)
        return (f"'{self.words}': the largest effect of the family must reach {self.seed_ratio:g}x's band (its "
                f"interval inside {low:.4g}x to {high:.4g}x; a win below the band is not enough: direction only, "
                "magnitude differs), every other cell shown above 1")


@dataclass(frozen=True)
class Equivalent:
    """A as fast as B within a margin: the ratio inside 1/margin to margin (TOST)."""

    margin: float = 1.1
    seed_word: str = ""
    sized = False
    equivalence = True
    tests = ("claim", "against")

    @property
    def words(self) -> str:
        return f"equivalent within {self.margin - 1:.0%}"

    def claim(self, ratio: Ratio) -> float | None:
        return _inside(ratio, 1 / self.margin, self.margin)

    def direction(self, ratio: Ratio) -> float | None:
        return None

    def against(self, ratio: Ratio) -> float | None:
        return _outside(ratio, 1 / self.margin, self.margin)

    def off(self, ratio: Ratio) -> float | None:
        return None

    def rule(self) -> str:
        word = f" (the margin '{self.seed_word}' implies)" if self.seed_word else ""
        return (f"'{self.words}': two one-sided tests (TOST), equivalent when its interval lies inside "
                f"{1 / self.margin:.3g}x to {self.margin:.3g}x{word}; not equivalent when wholly outside")


Form = Direction | Equivalent
