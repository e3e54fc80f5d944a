"""The answer in a few lines, before the rankings it sums up: per workload (and concurrency and
network, where the run has several) the mechanism to pick, by how much over the next with its 95%
interval over trials, or that the first cannot be told apart. The terminal, markdown, JSON and the
HTML's summary open with these same lines.
"""

from __future__ import annotations

from rpcarena.analysis import stats
from rpcarena.report.answer import DIFFERENT_METHODS, Ranking


def short_title(ranking: Ranking, every: list[Ranking]) -> str:
    """The ranking's name in a headline: its workload, with the concurrency and the network only when
    the run has several; 'targets' for targets that call different methods."""
    name = "targets" if ranking.workload.startswith(DIFFERENT_METHODS) else ranking.workload
    if len({r.clients for r in every}) > 1:
        name += f", {ranking.clients} client{'s' if ranking.clients != 1 else ''}"
    return name + (f", {ranking.setting}" if ranking.setting and len({r.setting for r in every}) > 1 else "")


def verdict_line(ranking: Ranking, every: list[Ranking]) -> str:
    """'usp.int32: grpc-go, 1.75x [1.42-2.16] ahead of grpc-py', 'no significant difference between
    A, B' or '... (cannot tell)': the mechanism to pick, by how much over the next, and how sure."""
    title = short_title(ranking, every)
    ok = [e for e in ranking.entries if e.failed is None]
    if not ok or ok[0].ratio is not None:
        return f"{title}: no mechanism measured without failing"
    best = ok[0]
    if len(ok) == 1:
        return f"{title}: {best.name} (the only mechanism measured)"
    tied = [e.name for e in ok[1:] if e.verdict == "not significant"]
    if tied:
        return f"{title}: no significant difference between {_names([best.name, *tied])}"
    second = ok[1]
    r = second.ratio
    assert r is not None
    if r.interval is None:
        return f"{title}: {best.name}, {r.estimate:.2f}x ahead of {second.name} ({stats.CANNOT_TELL})"
    low, high = r.interval.low, r.interval.high
    return f"{title}: {best.name}, {r.estimate:.2f}x [{low:.2f}-{high:.2f}] ahead of {second.name}"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


HEADLINE_RANKINGS = 5  # a suite's dozens of comparisons are in its findings; the headline names the first


def headline(rankings: list[Ranking]) -> list[str]:
    """The answer in a few lines: its heading (the statistic, how many trials), then per workload (and
    concurrency and network) the mechanism to pick (`verdict_line`); rankings of those that moved no
    data are not an answer to pick from."""
    chosen = [r for r in rankings if not r.apart and r.entries]
    if not chosen:
        return []
    fewest = min(len(e.group.cells) for r in chosen for e in r.entries)
    over = f"{fewest} trial{'s' if fewest != 1 else ''}"
    how = f"95% interval over {over}" if fewest >= stats.MIN_TRIALS else f"{over}, too few to judge"
    lines = [verdict_line(r, chosen) for r in chosen[:HEADLINE_RANKINGS]]
    more = len(chosen) - HEADLINE_RANKINGS
    return [f"answer, by p50 ({how}):", *lines] + ([f"and {more} more comparisons below"] if more > 0 else [])
