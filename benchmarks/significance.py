"""Does `rpcarena compare` call identical runs different (A/A), and does it catch a 10% slowdown (A/B)?

It makes N real runs of the same configuration one after another (default: tcp-raw, grpc-py
and rest-warp on usp.int32, --repeat 5, 1000 calls a trial, --pin same; each run a fresh arena
through the library: contender_cells.plans + Arena, trials interleaved), then forms
pairs among them instead of running each pair afresh: with N = 7 runs, the 20 pairs
closest in time (every pair but first-with-last), so a pair is two runs one to five runs
apart (about 20 s a run here). Pairs share runs, so their verdicts are not independent:
the rates are estimates from 7 runs, not from 40.

- A/A: compare(run i, run j) as `rpcarena compare` does at its default settings. A false
  positive is a cell whose median (or p99) is called significantly different; a false
  alarm a pair that `--fail-if-slower 5%` would fail.
- A/B: the same pairs with run j's latencies multiplied by 1.10 (`Cell.slowed`: its
  histograms and its samples, so the run-to-run noise is the real one). Detected: the
  cell's median called significantly slower; per pair, `--fail-if-slower 5%` fails it.

Each is counted per cell and over all, with all 5 trials, with the first 3, and with the
first only (the default `--repeat 1`: "cannot tell" by rule, so never a false positive),
and, for reference, with the rule compare had before (a bootstrap of calls, trials
resampled first). It also prints how much one run's trials differ and how much runs
differ: where runs differ more than their trials predict, the machine changed between
runs, and no test on one run's trials can tell that from a real change; beside each it
prints the best detection rate any test at 5% false positives could reach with runs that
noisy (the targets need runs that differ by 2.4% or less). Runs are kept in
--out, and --from DIR judges runs kept before without measuring again.

Why --pin same by default: it judges compare's rule, so it measures where the rule, not the
machine, decides. With --pin split on a 2-vCPU VM every call wakes the other vCPU twice, and
what that costs is the hypervisor's business: fresh processes' trials differ by 7-15% there
(1.5% for tcp-raw at --pin same), so that no test on 5 trials a side could see 10%, and the
"at best" column says so. Even at --pin same some systems' fresh processes land in modes of
their own for their whole life (grpc-py: 1 in 5 about 17% faster, client and server CPU per
call alike, with 2 s trials as with 1000 calls), and the goals give, per contender, the change
its trials put within reach of 5 a side. The last line judges each pair of runs as a CI gate
does (`compare --fail-if-slower 5%` over all cells): a false alarm is any cell called different,
a catch is the gate failing the slowed run. `rpcarena compare` says the same to its users:
beside each "not significant" it prints the smallest change the trials could have caught.

    .venv/bin/python benchmarks/significance.py [--runs 7] [--calls 1000] [--repeat 5]
        [--pin same] [--out results/significance] [--from DIR] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import rpcarena
from rpcarena.analysis import comparison, stats
from rpcarena.analysis.groups import group
from rpcarena.config import RunConfig
from rpcarena.errors import ArenaError
from rpcarena.orchestration import contender_cells
from rpcarena.orchestration.arena import Arena
from rpcarena.results import Results

CONTENDERS = "tcp-raw,grpc-py,rest-warp"
WORKLOAD = "usp.int32"
SLOWDOWN = 1.10
THRESHOLD = 0.05  # --fail-if-slower 5%
PAIRS = 20


@dataclass
class Count:
    """How many of `of` comparisons said yes."""

    yes: int = 0
    of: int = 0

    def add(self, said: bool) -> None:
        self.yes, self.of = self.yes + said, self.of + 1

    def __str__(self) -> str:
        return f"{self.yes:>3}/{self.of:<3} {self.yes / self.of:6.1%}" if self.of else "-"


def measure(contenders: list[str], runs: int, calls: int, repeat: int, warmup_s: float, pin: str,
            out: Path) -> list[Results]:
    """N runs of the same configuration, one after another, each saved in `out`."""
    done = []
    for i in range(runs):
        config = RunConfig(contenders=contenders, workloads=[WORKLOAD], calls=calls, repeat=repeat,
                           warmup_s=warmup_s, pin=pin, out=out / f"run{i:02d}.json")
        started = time.monotonic()
        doc = Arena(config, contender_cells.plans(config)).run()
        if doc.failures:
            raise ArenaError(f"run {i}: {doc.failures[0]}")
        print(f"  run {i + 1}/{runs}: {time.monotonic() - started:.0f} s, load {os.getloadavg()[0]:.1f}", flush=True)
        done.append(doc)
    return done


def closest_pairs(runs: int, wanted: int = PAIRS) -> list[tuple[int, int]]:
    """The `wanted` pairs of runs closest in time (adjacent runs first)."""
    return sorted(itertools.combinations(range(runs), 2), key=lambda p: (p[1] - p[0], p))[:wanted]


def first_trials(doc: Results, k: int) -> Results:
    return replace(doc, cells=[c for c in doc.cells if c.trial < k])


def slowed(doc: Results, factor: float = SLOWDOWN) -> Results:
    return replace(doc, cells=[c.slowed(factor) for c in doc.cells])


def by_trials(a: Results, b: Results) -> comparison.Comparison:
    """What `rpcarena compare` says today."""
    return comparison.compare(a, b)


class CallBootstrap:
    """What compare used before (and the package no longer has): a bootstrap of calls with trials
    resampled first, of the median and p99 of one group. Its seed is fixed on purpose: every replicate
    of a slowed run is then the same replicate times the factor."""

    def __init__(self, trials: list[np.ndarray], resamples: int = 1000, seed: int = 0):
        rng, sizes = np.random.default_rng(seed), np.array([t.size for t in trials])
        pooled, offsets = np.concatenate(trials), np.concatenate([[0], np.cumsum(sizes)[:-1]])
        parts = []
        for _ in range(0, resamples, 100):  # 100 replicates at a time bound the memory
            chosen = rng.integers(0, sizes.size, (100, sizes.size))
            trial = np.take_along_axis(chosen, rng.integers(0, sizes.size, (100, pooled.size)), axis=1)
            drawn = pooled[offsets[trial] + (rng.random((100, pooled.size)) * sizes[trial]).astype(np.int64)]
            parts.append(np.percentile(drawn, [50.0, 99.0], axis=1))
        self.estimates = dict(zip(("median", "p99"), np.percentile(pooled, [50.0, 99.0])))
        self.replicates = dict(zip(("median", "p99"), np.concatenate(parts, axis=1)))

    def ratio(self, base: CallBootstrap, statistic: str) -> stats.Interval:
        """self / base of a statistic, with its 95% percentile interval (independent bootstraps)."""
        replicates = self.replicates[statistic] / base.replicates[statistic]
        low, high = np.percentile(replicates, [2.5, 97.5])
        return stats.Interval(float(self.estimates[statistic] / base.estimates[statistic]), float(low), float(high))


def bootstraps(doc: Results) -> dict:
    """Each cell's bootstrap of calls (trials resampled first): what compare used before."""
    return {g.key: CallBootstrap(g.trials) for g in group(doc.cells)}


def by_calls(a: dict, b: dict) -> list[tuple[tuple, tuple[stats.Interval, stats.Interval]]]:
    """What compare said before: per cell, B/A of the median and the p99 from bootstraps of calls."""
    return [(k, (b[k].ratio(a[k], "median"), b[k].ratio(a[k], "p99"))) for k in a if k in b]


class Counts:
    """Counts by measure ('aa_median', ...) and by cell (a contender, or 'all cells'; 'pairs' for alarms)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], Count] = {}

    def add(self, measure: str, who: str, said: bool) -> None:
        for key in ((measure, who), (measure, "all cells")) if who != "pairs" else ((measure, who),):
            self.found.setdefault(key, Count()).add(said)

    def get(self, measure: str, who: str) -> Count:
        return self.found.get((measure, who), Count())


def rates(docs: list[Results], pairs: list[tuple[int, int]], trials: int) -> Counts:
    """A/A and A/B counts over the pairs, comparing the first `trials` trials of each run."""
    counts = Counts()
    cut = [first_trials(d, trials) for d in docs]
    boots = [bootstraps(d) for d in cut]
    for i, j in pairs:
        _count_now(counts, by_trials(cut[i], cut[j]), by_trials(cut[i], slowed(cut[j])))
        for key, (median, p99) in by_calls(boots[i], boots[j]):
            counts.add("old_aa_median", key[0], median.excludes(1.0))
            counts.add("old_aa_p99", key[0], p99.excludes(1.0))
            # every replicate of a slowed run is the same replicate times the factor (same seed, same draws)
            counts.add("old_ab_median", key[0], median.low * SLOWDOWN > 1)
    return counts


def _count_now(counts: Counts, same: comparison.Comparison, slower: comparison.Comparison) -> None:
    for row in same.rows:
        counts.add("aa_median", row.key[0], row.change("median").significant)
        counts.add("aa_p99", row.key[0], row.change("p99").significant)
    for row in slower.rows:
        counts.add("ab_median", row.key[0], row.change("median").ratio.above)
    counts.add("aa_any", "pairs", any(row.change("median").significant for row in same.rows))
    counts.add("aa_alarm", "pairs", bool(same.slowdowns(THRESHOLD)))
    counts.add("ab_alarm", "pairs", bool(slower.slowdowns(THRESHOLD)))


def noise(docs: list[Results]) -> list[str]:
    """Per contender: how much the trials of one run differ, and how much runs differ (SD of log medians)."""
    lines = []
    for key in [g.key for g in group(docs[0].cells)]:
        per_run = log_medians(docs, key[0])
        within = trial_sd(per_run)
        between = float(np.std([r.mean() for r in per_run], ddof=1))
        predicted = within / math.sqrt(per_run[0].size)
        beyond = math.sqrt(max(between ** 2 - predicted ** 2, 0.0))
        lines.append(f"  {key[0]:<8} trials of one run differ by {within:.1%}; runs' means differ by {between:.1%} "
                     f"(SD of log medians; {predicted:.1%} if runs were trials, so {beyond:.1%} beyond them: "
                     f"compare adds {stats.RUN_TO_RUN:.1%}); {best_power(between):.0%} at best")
    return lines + ["  (at best: how often any test at 5% false positives could catch the slowdown, the runs' noise "
                    "known exactly; two runs differ by sqrt(2) times it)"]


def log_medians(docs: list[Results], contender: str) -> list[np.ndarray]:
    """Per run, the log of each trial's median of the contender's cell."""
    return [np.log(g.per_trial("median")) for d in docs for g in group(d.cells) if g.key[0] == contender]


def trial_sd(per_run: list[np.ndarray]) -> float:
    """How much one run's trials differ: the mean over runs of their SD of log medians."""
    return float(np.mean([r.std(ddof=1) for r in per_run])) if per_run[0].size > 1 else math.nan


def best_power(between: float) -> float:
    """The detection rate of a one-sided test at 2.5% (a two-sided 5%) of a log(SLOWDOWN) shift between two
    runs whose log medians each vary by `between`: no rule on one run a side can beat it."""
    if not between > 0:
        return math.nan
    z = math.log(SLOWDOWN) / (math.sqrt(2) * between) - 1.959964
    return 0.5 * math.erfc(-z / math.sqrt(2))


def report(docs: list[Results], pairs: list[tuple[int, int]], repeat: int, describe: str) -> str:
    cells = [g.key[0] for g in group(docs[0].cells)] + ["all cells"]
    head = (f"{'trials a side':<14}{'cell':<10}{'A/A median significant':>24}{'A/A p99 significant':>22}"
            f"{'A/B median slower':>22}")
    lines = [f"configuration: {describe}", f"pairs: {len(pairs)} among {len(docs)} runs: {pairs}",
             "noise of the median:", *noise(docs), "", "rpcarena compare (ratios over trials):", head]
    old = ["", "the rule compare had before (bootstrap of calls, trials resampled first), same pairs:", head]
    for k in sorted({repeat, min(3, repeat), 1}, reverse=True):
        c = rates(docs, pairs, k)
        for who in cells:
            lines.append(f"{k:<14}{who:<10}{c.get('aa_median', who)!s:>24}{c.get('aa_p99', who)!s:>22}"
                         f"{c.get('ab_median', who)!s:>22}")
            old.append(f"{k:<14}{who:<10}{c.get('old_aa_median', who)!s:>24}{c.get('old_aa_p99', who)!s:>22}"
                       f"{c.get('old_ab_median', who)!s:>22}")
        lines.append(f"{k:<14}{'pairs':<10}--fail-if-slower 5% fails A/A {c.get('aa_alarm', 'pairs')}, "
                     f"A/B {c.get('ab_alarm', 'pairs')}" + ("  (1 trial: cannot tell, by rule)" if k < 3 else ""))
    c = rates(docs, pairs, repeat)
    goals = [f"goals with --repeat {repeat} (A/A: at most 5% called different; A/B: at least 80% caught):"]
    for who in cells:
        aa, ab = c.get("aa_median", who), c.get("ab_median", who)
        goals.append(f"  {who:<10} A/A {aa.yes / aa.of:6.1%} {_met(aa.yes <= 0.05 * aa.of):<8} "
                     f"A/B {ab.yes / ab.of:6.1%} {_met(ab.yes >= 0.8 * ab.of):<8}{_reach(docs, who, repeat)}")
    any_cell, fired, caught = c.get("aa_any", "pairs"), c.get("aa_alarm", "pairs"), c.get("ab_alarm", "pairs")
    calm = max(any_cell.yes, fired.yes) <= 0.05 * fired.of
    goals.append(f"  per pair, as a CI gate sees two runs: A/A any cell different {any_cell.yes / any_cell.of:.1%}"
                 f", --fail-if-slower 5% fired {fired.yes / fired.of:.1%} {_met(calm)}; A/B --fail-if-slower 5% "
                 f"fired {caught.yes / caught.of:.1%} {_met(caught.yes >= 0.8 * caught.of)}")
    return "\n".join(lines + old + ["", *goals])


def _reach(docs: list[Results], who: str, repeat: int) -> str:
    """What a contender's own trials allow: the change `repeat` trials a side catch 4 times in 5."""
    per_run = log_medians(docs, who)
    if not per_run or per_run[0].size < 2:
        return ""
    sd = trial_sd(per_run)
    reach = stats.reach(sd, repeat, stats.RUN_TO_RUN)
    return (f"  (trials differ by {sd:.1%}: {repeat} a side catch {reach:.0%} 4 times in 5"
            + (", so 10% is out of their reach)" if reach > SLOWDOWN - 1 else ")"))


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contender", default=CONTENDERS, help="comma-separated contenders (default %(default)s)")
    parser.add_argument("--runs", type=int, default=7, help="runs to make; pairs are formed among them")
    parser.add_argument("--calls", type=int, default=1000, help="calls per trial")
    parser.add_argument("--repeat", type=int, default=5, help="trials per cell in each run")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up per trial")
    parser.add_argument("--pin", default="same", help="CPU placement, as rpcarena run --pin (see above)")
    parser.add_argument("--out", type=Path, default=Path("results/significance"), help="where the runs are kept")
    parser.add_argument("--from", dest="source", type=Path, help="judge the runs kept in this folder; measure none")
    parser.add_argument("--quick", action="store_true", help="4 runs (6 pairs) of 300 calls, 0.2 s warm-up")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.calls, args.warmup = 4, 300, 0.2
    try:
        docs = load(args.source) if args.source else measure(args.contender.split(","), args.runs, args.calls,
                                                               args.repeat, args.warmup, args.pin, args.out)
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(report(docs, closest_pairs(len(docs)), args.repeat, describe(docs[0])))
    return 0


def load(folder: Path) -> list[Results]:
    found = sorted(folder.glob("run*.json"))
    if len(found) < 2:
        raise ArenaError(f"fewer than 2 runs in {folder}: run without --from first")
    return [rpcarena.load(p) for p in found]


def describe(doc: Results) -> str:
    c = doc.config
    return (f"{', '.join(c['contenders'])} on {', '.join(c['workloads'])}, --repeat {c['repeat']}, "
            f"{c['calls']} calls a trial, warm-up {c['warmup_s']} s, --pin {c['pin']}; slowdown x{SLOWDOWN}, "
            f"compare at its defaults (95%, no --trim)")


if __name__ == "__main__":
    sys.exit(main())
