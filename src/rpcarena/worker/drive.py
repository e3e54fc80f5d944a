"""`python -m rpcarena.worker.drive`: Python clients speaking the worker contract's `drive`.

One process runs `clients` closed-loop clients as threads, each with its own
connection or sharing the spec's `connections` (`worker.sharing`); the orchestrator
spreads many clients over several such processes so that one GIL is not what gets
measured. See docs/worker-contract.md.
"""

from __future__ import annotations

import base64
import json
import math
import random
import resource
import sys
import threading
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from rpcarena import targets
from rpcarena.contenders import get, python_client
from rpcarena.contract import INTERVAL_EVENT, WARM, DriveResult, DriveSpec
from rpcarena.errors import ArenaError, UsageError
from rpcarena.protocol import schema
from rpcarena.record import hist
from rpcarena.record.intervals import IntervalEntry
from rpcarena.worker import pacer
from rpcarena.worker.intervals import Recorder
from rpcarena.worker.merge import merge
from rpcarena.worker.sharing import Pool

LATE_NS = 1_000_000
FLUSH = 4096  # latencies buffered before they go into the histogram at once
EXAMPLE_CHARS = 300  # an error example: the check that failed, expected and actual, bounded


@dataclass
class Tally:
    """What one client measured; merged into the result at the end."""

    histogram: Any = field(default_factory=hist.new)
    uncorrected: Any = None
    lag: Any = None  # open loop: due -> sent
    errors: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    samples: list[list[int]] = field(default_factory=list)  # [call index, latency_ns], the reservoir's
    late: int = 0
    staged: list[Tally] = field(default_factory=list)  # open loop in stages: a Tally per stage, of due -> done etc.
    pending: array[int] = field(default_factory=lambda: array("q"))  # latencies not yet in the histogram
    series: Recorder = field(default_factory=lambda: Recorder(1.0))  # the open interval's histogram and those closed
    messages: Any = None  # one-way streams: each reply message's latency (made at the first)
    pending_messages: array[int] = field(default_factory=lambda: array("q"))  # not yet in `messages`

    def fail(self, kind: str, error: BaseException | None, detail: Callable[[], str] | None = None) -> None:
        """One failed call; the first of each kind is kept as its example (`detail` is asked only then)."""
        self.errors[kind] += 1
        if kind not in self.examples:
            try:
                text = detail() if detail else str(error) if error else kind
            except Exception as failure:  # an example that cannot be told must not end the client
                text = f"{kind} (its example failed: {failure!r})"
            self.examples[kind] = " ".join(text.split())[:EXAMPLE_CHARS]  # one line: it ends in a progress line

    def flush(self) -> None:
        hist.record_many(self.histogram, self.pending)
        hist.record_many(self.series.histogram, self.pending)
        del self.pending[:]

    def result(self, window: dict[str, Any]) -> DriveResult:
        """This client's part of the driver's result (the process's CPU is the driver's to add)."""
        return DriveResult(
            calls=self.histogram.get_total_count(), errors=dict(self.errors), error_examples=dict(self.examples),
            histogram=hist.encode(self.histogram), samples=self.samples,
            histogram_uncorrected=hist.encode(self.uncorrected) if self.uncorrected is not None else None,
            histogram_schedule_lag=hist.encode(self.lag) if self.lag is not None else None,
            late_calls=self.late, cpu_user_s=0.0, cpu_sys_s=0.0, tool={},
            stages=[stage.figures() for stage in self.staged] or None, intervals=list(self.series.closed),
            **({} if self.messages is None else {"messages": self.messages.get_total_count(),
                                                 "histogram_messages": hist.encode(self.messages)}), **window)

    def add_messages(self, latencies_ns: list[int]) -> None:
        """A verified stream's reply messages, each with its latency (into the histogram in bulk)."""
        if self.messages is None:
            self.messages = hist.new()
        self.pending_messages.extend(latencies_ns)
        if len(self.pending_messages) >= FLUSH:
            self.flush_messages()

    def flush_messages(self) -> None:
        if self.messages is not None:
            hist.record_many(self.messages, self.pending_messages)
            del self.pending_messages[:]

    def roll(self, now_ns: int) -> None:
        """The client's clock passed its interval's end: what is pending belongs to the interval closed."""
        self.flush()
        self.series.roll(now_ns, self.errors)

    def record(self, latency_ns: int) -> None:
        """One latency into the cell's histogram and its interval's (the open loop's, call by call)."""
        self.histogram.record_value(latency_ns)
        self.series.histogram.record_value(latency_ns)

    def finish(self) -> None:
        self.flush()
        self.flush_messages()
        self.series.close(self.errors)

    def figures(self) -> dict[str, Any]:
        """One --rate stage's figures (this tally keeps a stage's calls of one client)."""
        return {"calls": self.histogram.get_total_count(), "histogram": hist.encode(self.histogram),
                "histogram_uncorrected": hist.encode(self.uncorrected), "histogram_schedule_lag": hist.encode(self.lag)}


class Reservoir:
    """A uniform sample of at most `limit` calls (Algorithm L): which call is kept next is drawn
    ahead, so every call in between costs the caller one comparison and no allocation."""

    def __init__(self, limit: int, rng: random.Random) -> None:
        self.limit, self.rng = limit, rng
        self.items: list[list[int]] = []
        self._w = 1.0

    def keep(self, seen: int, index: int, latency_ns: int) -> int:
        """Keep the `seen`-th call (1-based, the one asked for last time); return which to keep next."""
        if len(self.items) < self.limit:
            self.items.append([index, latency_ns])
            if len(self.items) < self.limit:
                return seen + 1
        else:
            self.items[int(self.rng.random() * self.limit)] = [index, latency_ns]
        self._w = min(self._w * math.exp(math.log(1.0 - self.rng.random()) / self.limit), 1.0 - 1e-12)
        return seen + int(math.log(1.0 - self.rng.random()) / math.log1p(-self._w)) + 1


class Driver:
    """The clients of one driver process and the two barriers around the warm-up."""

    def __init__(self, spec: DriveSpec) -> None:
        self.spec = spec
        self.n = spec.clients
        client_cls = client_factory(spec)
        timeout_s = call_timeout_s(spec)
        self.limit_ns = int(timeout_s * 1e9)
        self.pool: Pool | None = None
        if spec.connections is None:
            self.clients = [client_cls(spec.target, spec.method, timeout_s) for _ in range(self.n)]
        else:
            self.pool = Pool([client_cls(spec.target, spec.method, timeout_s) for _ in range(spec.connections)])
            self.clients = [self.pool.view(i) for i in range(self.n)]
        requests, responses = spec.requests, spec.responses or spec.requests  # tcp-raw echoes
        self.requests = [self.clients[0].prepare(r) for r in requests]
        self.expected = [self.clients[0].expect(r) for r in responses]
        self.warm = threading.Barrier(self.n + 1)
        self.go = threading.Barrier(self.n + 1)
        self.tallies = [Tally(series=Recorder(spec.interval_s, _said_interval)) for _ in range(self.n)]
        self.start_ns = 0
        self.schedule: pacer.Schedule | None = None  # open loop: set when the measured phase starts
        # a one-way stream's client times each reply message (as the native drivers do): the call's
        # reply and latency -> each message's latency
        self.per_message = getattr(self.clients[0], "message_latencies", None)

    def quota(self, i: int) -> int | None:
        calls = self.spec.calls
        if calls is None:
            return None
        return calls // self.n + (1 if i < calls % self.n else 0)

    def call_once(self, client: Any, k: int, tally: Tally) -> tuple[int, int] | None:
        """One timed call: (start_ns, end_ns) when the reply was right in time, else None (counted).

        A reply later than the timeout is a `timeout` too, though the library let it through: its
        deadline may be coarser (RPyC) or per read (httpx), and a late reply is never a sample."""
        slot = k % len(self.requests)
        start = time.perf_counter_ns()
        try:
            got = client.call(self.requests[slot])
        except Exception as error:  # a failed call is data: counted by kind, never a sample
            _failed(client, tally, error)
            return None
        end = time.perf_counter_ns()
        if end - start > self.limit_ns:
            tally.fail("timeout", None, _late(end - start, self.limit_ns))
            return None
        if not client.same(got, self.expected[slot]):
            tally.fail("wrong_answer", None, _wrong(client, got, self.expected[slot]))
            return None
        if self.per_message is not None:
            tally.add_messages(self.per_message(got, end - start))
        return start, end

    def warm_up(self, i: int) -> None:
        client, deadline = self.clients[i], time.perf_counter_ns() + int(self.spec.warmup_s * 1e9)
        k, scratch = i, Tally()
        while time.perf_counter_ns() < deadline:
            self.call_once(client, k, scratch)
            k += 1

    def closed_loop(self, i: int, tally: Tally, rng: random.Random) -> None:
        """call_once inlined, with everything a call does beside the call cut to the bone (what
        benchmarks/harness_overhead.py measures): two clock reads, the check, one append to a
        buffer the histogram takes in bulk; the sample only on the calls the reservoir keeps."""
        client, requests, expected, pending = self.clients[i], self.requests, self.expected, tally.pending
        call, same, clock, slots = client.call, client.same, time.perf_counter_ns, len(requests)
        reservoir, kept, keep_at, limit = Reservoir(self.sample_share(), rng), 0, 1, self.limit_ns
        series, per_message = tally.series, self.per_message
        for k in self.turns(i):
            slot = (i + k) % slots
            start = clock()
            if start >= series.next_ns:
                tally.roll(start)
            try:
                got = call(requests[slot])
            except Exception as error:  # a failed call is data: counted by kind, never a sample
                _failed(client, tally, error)
                continue
            latency = clock() - start
            if latency > limit:
                tally.fail("timeout", None, _late(latency, limit))
                continue
            if not same(got, expected[slot]):
                tally.fail("wrong_answer", None, _wrong(client, got, expected[slot]))
                continue
            pending.append(latency)
            if per_message is not None:
                tally.add_messages(per_message(got, latency))
            kept += 1
            if kept == keep_at:
                keep_at = reservoir.keep(kept, k, latency)  # k * clients + i once merged
            if len(pending) >= FLUSH:
                tally.flush()
        tally.finish()
        tally.samples = reservoir.items

    def turns(self, i: int) -> Iterator[int]:
        """Client i's call numbers: its quota of calls, or as many as the duration allows."""
        quota = self.quota(i)
        if quota is not None:
            return iter(range(quota))
        return _until(self.start_ns + int((self.spec.duration_s or 0) * 1e9))

    def open_loop(self, i: int, tally: Tally, rng: random.Random) -> None:
        """Calls taken from the shared schedule, each timed three ways: due -> done (the corrected
        latency, wrk2's), sent -> done (uncorrected) and due -> sent (the driver's own lateness)."""
        client, schedule = self.clients[i], self.schedule
        assert schedule is not None, "set before the go barrier opens"
        reservoir, kept, keep_at, k = Reservoir(self.sample_share(), rng), 0, 1, 0
        _open(tally)
        tally.staged = [_open(Tally()) for _ in self.spec.stages or []]
        pacer.fine_timers()
        while (due := schedule.next()) is not None:
            if due >= tally.series.next_ns:
                tally.roll(due)
            pacer.wait_until(due)
            timed = self.call_once(client, i + k, tally)
            k += 1
            if timed is None:
                continue
            sent, done = timed
            tally.late += sent - due > LATE_NS
            for each in (tally, tally.staged[schedule.stage(due)]) if tally.staged else (tally,):
                each.record(done - due)
                each.uncorrected.record_value(done - sent)
                each.lag.record_value(sent - due)
            kept += 1
            if kept == keep_at:
                keep_at = reservoir.keep(kept, k, done - due)  # k * clients + i once merged
        tally.finish()
        tally.samples = reservoir.items

    def sample_share(self) -> int:
        return max(1, self.spec.sample_limit // self.n)

    def client_thread(self, i: int) -> None:
        self.warm_up(i)
        self.warm.wait()
        self.go.wait()
        self.tallies[i].series.begin(self.start_ns)
        rng = random.Random()  # from the OS: the clients of several driver processes must not keep the same calls
        loop = self.open_loop if self.spec.rate_per_s else self.closed_loop
        loop(i, self.tallies[i], rng)

    def run(self) -> DriveResult:
        threads = [threading.Thread(target=self.client_thread, args=(i,), daemon=True) for i in range(self.n)]
        for thread in threads:
            thread.start()
        self.warm.wait()
        if self.spec.sync:
            _say(WARM)
            sys.stdin.readline()
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        self.start_ns = time.perf_counter_ns()
        if self.spec.rate_per_s:
            self.schedule = pacer.Schedule(self.spec.rate_per_s, self.spec.arrival, self.start_ns, self.spec.calls,
                                           self.start_ns + int((self.spec.duration_s or 0) * 1e9), self.spec.stages,
                                           self.spec.schedule_offset_ns or 0)
        mono_start = time.monotonic_ns()
        if self.pool is not None:
            self.pool.reset()  # every client waits at the barrier: nothing is in flight
        self.go.wait()
        for thread in threads:
            thread.join()
        wall_ns = time.perf_counter_ns() - self.start_ns
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        for client in self.clients:
            client.close()
        if self.pool is not None:
            self.pool.close()
        return self.result(wall_ns, usage0, usage1, mono_start)

    def result(self, wall_ns: int, usage0: Any, usage1: Any, mono_start: int) -> DriveResult:
        """The clients' tallies merged as every level's parts are (`worker.merge`), with what only
        the process knows: its CPU time, its clients' fail-overs, the tool."""
        window = {"wall_s": wall_ns / 1e9, "start_mono_ns": mono_start, "end_mono_ns": mono_start + wall_ns}
        merged = merge([tally.result(window) for tally in self.tallies])
        return replace(
            merged, cpu_user_s=usage1.ru_utime - usage0.ru_utime, cpu_sys_s=usage1.ru_stime - usage0.ru_stime,
            # calls a failing-over client (typed-json) resent to another server; 0 for the others
            retries=sum(getattr(client, "retries", 0) for client in self.clients),
            tool={"name": "rpcarena-py", "runtime": sys.version.split()[0]},
            **(self.pool.figures() if self.pool is not None else {}))


def _open(tally: Tally) -> Tally:
    """A tally that also keeps the open loop's uncorrected and schedule-lag histograms."""
    tally.uncorrected, tally.lag = hist.new(), hist.new()
    return tally


def call_timeout_s(spec: DriveSpec) -> float:
    """The per-call deadline: an external target's exact one (it may be below 1 ms), else the contract's."""
    exact = (spec.external or {}).get("timeout_us")
    return exact / 1e6 if exact else spec.timeout_ms / 1000


def client_factory(spec: DriveSpec) -> Any:
    """(target, method, timeout_s) -> a client: the contender protocol's, or an external target's."""
    if spec.external is not None:
        return targets.client_factory(spec.external)
    if spec.schema_b64 is not None:  # a method of the user's schema: its messages, built here
        schema.add_user(base64.b64decode(spec.schema_b64))
    contender = get(spec.contender)
    return python_client(contender.protocol, spec.client or contender.default_client(), mode=spec.mode)


def _until(deadline_ns: int) -> Iterator[int]:
    k = 0
    while time.perf_counter_ns() < deadline_ns:
        yield k
        k += 1


def _late(latency_ns: int, limit_ns: int) -> Callable[[], str]:
    """The example of a reply past --timeout (told only for the first)."""
    return lambda: f"a reply took {latency_ns / 1e3:,.0f} us, over the --timeout of {limit_ns / 1e3:,.0f} us"


def _wrong(client: Any, got: Any, want: Any) -> Callable[[], str]:
    """The example of a wrong answer: the check that failed, expected and actual (told only for the first)."""
    return lambda: client.explain(got, want)


def _told(client: Any, error: BaseException) -> str:
    """What a failed call says: the client's own one line where it has one (grpcio's str() of an
    RpcError is a multi-line `<_InactiveRpcError ...>`), else the error's text."""
    describe = getattr(client, "describe", None)
    return str(describe(error) if describe else error) or type(error).__name__


def _failed(client: Any, tally: Tally, error: BaseException) -> None:
    """A call that raised: counted by its kind; a client whose connection broke reconnects."""
    kind = client.classify(error)
    tally.fail(kind, error, lambda: _told(client, error))
    if kind in ("timeout", "connection"):
        _reconnect(client)


def _reconnect(client: Any) -> None:
    try:
        client.reconnect()
    except OSError:
        pass  # still down: the next call fails and is counted as a connection error


_SAYING = threading.Lock()  # clients close their intervals on their own threads


def _say(message: dict[str, Any]) -> None:
    with _SAYING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def _said_interval(entry: IntervalEntry) -> None:
    """A client's interval as it closes, for the orchestrator's live line (the result holds them all)."""
    _say({"event": INTERVAL_EVENT, **entry})


def parse(line: str) -> DriveSpec:
    """The spec on stdin; the Python tcp-raw client takes canonical requests, not payloads_b64."""
    spec = DriveSpec.from_line(line)
    if spec.payloads_b64 and not spec.requests:
        raise UsageError("the Python tcp-raw client takes canonical requests, not payloads_b64")
    return spec


def main() -> int:
    try:
        _say(Driver(parse(sys.stdin.readline())).run().to_json())
    except ArenaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (KeyError, ValueError) as error:  # a request its client cannot prepare
        print(f"error: bad drive spec ({error!r})", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot connect ({error})", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())

