"""multiplexing: rpcarena's own study (not a published seed) of N calls in flight over one connection
against one connection each (issue 25, `--connections`).

gRPC carries many calls at once on one HTTP/2 connection; an HTTP/1.1 pool of one connection
carries one at a time, so its calls queue. On loopback sharing should cost gRPC little; over a
lossy link (rtt=20ms, loss=1%) a lost segment holds back every call behind it on that one TCP
connection (head-of-line blocking), where separate connections stall alone. Each question is
answered from the trials' ratio, shared over own, at 8 and 64 calls in flight (1 is the same
design both ways); the server's memory is compared at 64.
"""

from __future__ import annotations

from collections.abc import Callable

from rpcarena.analysis import groups
from rpcarena.analysis.stats import MIN_TRIALS
from rpcarena.results import Cell
from rpcarena.seeds.multiplexing.workloads import PREFIX
from rpcarena.suites.evidence import Evidence
from rpcarena.suites.judges import MEASURES, Judge, measure, outcome, ratio_rule, tally
from rpcarena.suites.model import FAILS, HOLDS, NOT_COMPARABLE, UNDECIDED, Claim, Judgement, Measured, Part, Suite

WORKLOAD = f"{PREFIX}.str1024"
LOSSY = "rtt=20ms,loss=1%"
IN_FLIGHT = (8, 64)
SHARED, OWN = "1 connection", "one connection each"


def _view(shared: bool, lossy: bool) -> Callable[[Cell], bool]:
    """The cells of one design: over 1 shared connection or one each, on loopback or the lossy link."""
    return lambda c: (c.connections == 1 if shared else c.connections is None) and (c.link is not None) == lossy


def shared_slower(contender: str, statistic: str, lossy: bool) -> Judge:
    """Whether calls sharing one connection take longer (`statistic`) than calls on one connection
    each, at every level of IN_FLIGHT: shared/own above 1 over trials."""
    rule = (f"{ratio_rule(f'{contender} ({SHARED})', f'{contender} ({OWN})', statistic)} on {WORKLOAD} at "
            f"{' and '.join(map(str, IN_FLIGHT))} clients{' over ' + LOSSY if lossy else ', loopback'}; yes when "
            f"its interval lies above 1, {MIN_TRIALS} or more trials each")

    def judge(ev: Evidence) -> Judgement:
        mine, theirs = ev.over(_view(True, lossy)), ev.over(_view(False, lossy))
        ratios = {}
        for n in IN_FLIGHT:
            a, b = mine.get(contender, WORKLOAD, n), theirs.get(contender, WORKLOAD, n)
            found = groups.ratio(a, b, statistic) if a and b else None
            if found is not None:
                ratios[f"{contender} x{n}"] = found
        if not ratios:
            return Judgement((), NOT_COMPARABLE, f"{contender} not measured both ways here", rule)
        said = {what: outcome(r) for what, r in ratios.items()}
        found = tally(said, "levels", shown_as="slower shared", opposite_as="faster shared")
        measured = tuple(measure(f"{what} {SHARED}/{OWN}", MEASURES[statistic][0], r, said[what])
                         for what, r in ratios.items())
        return Judgement(measured, found.verdict, found.why, rule, found.share)
    return judge


def less_memory(contender: str, clients: int = 64) -> Judge:
    """Whether the server's peak RSS is lower with one shared connection than with one per client:
    every shared trial below every own trial (with 3 trials a side, a one-sided rank test at 5%)."""
    rule = (f"{contender}'s server peak RSS at {clients} clients, loopback: yes when every trial over {SHARED} "
            f"is below every trial over {OWN} ({MIN_TRIALS} or more a side); no when every one is above")

    def judge(ev: Evidence) -> Judgement:
        a = ev.over(_view(True, False)).get(contender, WORKLOAD, clients)
        b = ev.over(_view(False, False)).get(contender, WORKLOAD, clients)
        shared, own = _rss(a), _rss(b)
        if not shared or not own:
            return Judgement((), NOT_COMPARABLE, f"{contender}'s server memory not measured both ways", rule)
        row = Measured(f"{contender} x{clients}", "server peak RSS", value=f"{_mib(shared)} MiB over {SHARED}, "
                                                                           f"{_mib(own)} MiB over {OWN}")
        if min(len(shared), len(own)) < MIN_TRIALS:
            return Judgement((row,), UNDECIDED, f"fewer than {MIN_TRIALS} trials a side", rule)
        if max(shared) < min(own):
            return Judgement((row,), HOLDS, "every trial's server was smaller with one shared connection", rule)
        if min(shared) > max(own):
            return Judgement((row,), FAILS, "every trial's server was larger with one shared connection", rule)
        return Judgement((row,), UNDECIDED, "the trials overlap", rule)
    return judge


def _rss(group: groups.Group | None) -> list[int]:
    return [c.server_peak_rss_bytes for c in group.cells if c.server_peak_rss_bytes] if group else []


def _mib(values: list[int]) -> str:
    return "/".join(f"{v / 2**20:.1f}" for v in values)


def _parts() -> tuple[Part, ...]:
    """Each design on loopback (grpc-go and rest-go) and over the lossy link (grpc-go: HTTP/1.1 over one
    connection is a queue whatever the link, and at 20 ms a call it would take minutes)."""
    local = dict(contenders=("grpc-go", "rest-go"), workloads=(WORKLOAD,), calls=6400, quick_calls=3200,
                 clients=(1, 8, 64))
    lossy = dict(contenders=("grpc-go",), workloads=(WORKLOAD,), calls=6400, quick_calls=3200, clients=IN_FLIGHT,
                 link=LOSSY)
    return (Part(f"{OWN}, loopback", **local), Part(f"{SHARED} shared, loopback", **local, connections=1),
            Part(f"{OWN}, {LOSSY}", **lossy), Part(f"{SHARED} shared, {LOSSY}", **lossy, connections=1))


SUITE = Suite(
    name="multiplexing", seed="rpcarena's own study (issue 25): calls in flight over one connection or one each",
    summary=f"1, 8 and 64 calls in flight over 1 connection against one connection each, grpc-go and rest-go on "
            f"loopback, grpc-go over {LOSSY}, on {WORKLOAD}",
    parts=_parts(),
    claims=(
        Claim("On loopback, do gRPC calls take longer when 8 or 64 share one connection than on one connection "
              "each?", "rpcarena: a channel's single TCP connection and flow-control window against many",
              shared_slower("grpc-go", "median", lossy=False), question=True),
        Claim("On loopback, does an HTTP/1.1 pool of one connection make calls queue (8 or 64 callers)?",
              "rpcarena: HTTP/1.1 carries one call at a time on a connection", shared_slower("rest-go", "median",
                                                                                             lossy=False),
              question=True),
        Claim(f"Over {LOSSY}, is gRPC's p99 worse over one shared connection (head-of-line blocking: a lost "
              "segment holds back every call on it)?", "rpcarena: TCP delivers in order, one connection stalls "
              "whole", shared_slower("grpc-go", "p99", lossy=True), question=True),
        Claim("Does one shared gRPC connection cost the server less memory than 64 connections?",
              "rpcarena: each connection has its buffers and HTTP/2 state", less_memory("grpc-go"), question=True),
    ),
)
