"""`python -m rpcarena.worker.drive`: Python clients speaking the worker contract's `drive`.

One process runs `clients` closed-loop clients as threads, each with its own
connection; the orchestrator spreads many clients over several such processes
so that one GIL is not what gets measured. See docs/worker-contract.md.
"""

from __future__ import annotations

import json
import random
import resource
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rpcarena import external
from rpcarena.analysis import hist
from rpcarena.contenders import get, python_client
from rpcarena.contract import WARM, DriveResult, DriveSpec
from rpcarena.errors import ArenaError, UsageError
from rpcarena.worker import pacer

LATE_NS = 1_000_000
EXAMPLE_CHARS = 300  # an error example: the check that failed, expected and actual, bounded


@dataclass
class Tally:
    """What one client measured; merged into the result at the end."""

    histogram: Any = field(default_factory=hist.new)
    uncorrected: Any = None
    errors: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)
    samples: list = field(default_factory=list)
    seen: int = 0
    late: int = 0

    def fail(self, kind: str, error: BaseException | None, detail: Callable[[], str] | None = None) -> None:
        """One failed call; the first of each kind is kept as its example (`detail` is asked only then)."""
        self.errors[kind] += 1
        if kind not in self.examples:
            try:
                text = detail() if detail else str(error) if error else kind
            except Exception as failure:  # an example that cannot be told must not end the client
                text = f"{kind} (its example failed: {failure!r})"
            self.examples[kind] = text[:EXAMPLE_CHARS]

    def sample(self, index: int, latency_ns: int, limit: int, rng: random.Random) -> None:
        """Reservoir sampling (Algorithm R): a uniform bounded sample of the calls."""
        self.seen += 1
        if len(self.samples) < limit:
            self.samples.append([index, latency_ns])
        else:
            j = int(rng.random() * self.seen)
            if j < limit:
                self.samples[j] = [index, latency_ns]


class Driver:
    """The clients of one driver process and the two barriers around the warm-up."""

    def __init__(self, spec: DriveSpec) -> None:
        self.spec = spec
        self.n = spec.clients
        client_cls = client_factory(spec)
        timeout_s = call_timeout_s(spec)
        self.limit_ns = int(timeout_s * 1e9)
        self.clients = [client_cls(spec.target, spec.method, timeout_s) for _ in range(self.n)]
        requests, responses = spec.requests, spec.responses or spec.requests  # tcp-raw echoes
        self.requests = [self.clients[0].prepare(r) for r in requests]
        self.expected = [self.clients[0].expect(r) for r in responses]
        self.warm = threading.Barrier(self.n + 1)
        self.go = threading.Barrier(self.n + 1)
        self.tallies = [Tally() for _ in range(self.n)]
        self.start_ns = 0

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
            kind = client.classify(error)
            tally.fail(kind, error)
            if kind in ("timeout", "connection"):
                _reconnect(client)
            return None
        end = time.perf_counter_ns()
        if end - start > self.limit_ns:
            tally.fail("timeout", None, lambda: f"a reply took {(end - start) / 1e3:,.0f} us, over the "
                                                f"--timeout of {self.limit_ns / 1e3:,.0f} us")
            return None
        want = self.expected[slot]
        if not client.same(got, want):
            tally.fail("wrong_answer", None, lambda: client.explain(got, want))
            return None
        return start, end

    def warm_up(self, i: int) -> None:
        client, deadline = self.clients[i], time.perf_counter_ns() + int(self.spec.warmup_s * 1e9)
        k, scratch = i, Tally()
        while time.perf_counter_ns() < deadline:
            self.call_once(client, k, scratch)
            k += 1

    def closed_loop(self, i: int, tally: Tally, rng: random.Random) -> None:
        client, quota, limit = self.clients[i], self.quota(i), self.sample_share()
        deadline = self.start_ns + int((self.spec.duration_s or 0) * 1e9)
        k = 0
        while (k < quota) if quota is not None else (time.perf_counter_ns() < deadline):
            timed = self.call_once(client, i + k, tally)
            if timed is not None:
                latency = timed[1] - timed[0]
                tally.histogram.record_value(latency)
                tally.sample(k * self.n + i, latency, limit, rng)
            k += 1

    def open_loop(self, i: int, tally: Tally, rng: random.Random) -> None:
        client, quota, limit = self.clients[i], self.quota(i), self.sample_share()
        end_ns = self.start_ns + int((self.spec.duration_s or 0) * 1e9)
        tally.uncorrected = hist.new()
        assert self.spec.rate_per_s is not None
        schedule = pacer.client_offsets_ns(self.spec.rate_per_s, self.spec.arrival, i, self.n)
        for k, offset in enumerate(schedule):
            intended = self.start_ns + offset
            if (quota is not None and k >= quota) or (quota is None and intended >= end_ns):
                break
            _sleep_until(intended)
            timed = self.call_once(client, i + k, tally)
            if timed is None:
                continue
            tally.late += timed[0] - intended > LATE_NS
            tally.histogram.record_value(timed[1] - intended)
            tally.uncorrected.record_value(timed[1] - timed[0])
            tally.sample(k * self.n + i, timed[1] - intended, limit, rng)

    def sample_share(self) -> int:
        return max(1, self.spec.sample_limit // self.n)

    def client_thread(self, i: int) -> None:
        self.warm_up(i)
        self.warm.wait()
        self.go.wait()
        rng = random.Random(i)
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
        mono_start = time.monotonic_ns()
        self.go.wait()
        for thread in threads:
            thread.join()
        wall_ns = time.perf_counter_ns() - self.start_ns
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        for client in self.clients:
            client.close()
        return self.result(wall_ns, usage0, usage1, mono_start)

    def result(self, wall_ns: int, usage0: Any, usage1: Any, mono_start: int) -> DriveResult:
        histogram, errors, examples, samples = hist.new(), Counter(), {}, []
        uncorrected = hist.new() if self.spec.rate_per_s else None
        for tally in self.tallies:
            histogram.add(tally.histogram)
            if uncorrected is not None:
                uncorrected.add(tally.uncorrected)
            errors.update(tally.errors)
            samples.extend(tally.samples)
            for kind, text in tally.examples.items():
                examples.setdefault(kind, text)
        return DriveResult(
            calls=histogram.get_total_count(), errors=dict(errors), error_examples=examples,
            wall_s=wall_ns / 1e9, start_mono_ns=mono_start, end_mono_ns=mono_start + wall_ns,
            cpu_user_s=usage1.ru_utime - usage0.ru_utime, cpu_sys_s=usage1.ru_stime - usage0.ru_stime,
            histogram=hist.encode(histogram), samples=sorted(samples),
            histogram_uncorrected=hist.encode(uncorrected) if uncorrected is not None else None,
            late_calls=sum(t.late for t in self.tallies),
            # calls a failing-over client (typed-json) resent to another server; 0 for the others
            retries=sum(getattr(client, "retries", 0) for client in self.clients),
            tool={"name": "rpcarena-py", "runtime": sys.version.split()[0]},
        )


def call_timeout_s(spec: DriveSpec) -> float:
    """The per-call deadline: an external target's exact one (it may be below 1 ms), else the contract's."""
    exact = (spec.external or {}).get("timeout_us")
    return exact / 1e6 if exact else spec.timeout_ms / 1000


def client_factory(spec: DriveSpec) -> Any:
    """(target, method, timeout_s) -> a client: the contender protocol's, or an external target's."""
    if spec.external is not None:
        return external.client_factory(spec.external)
    contender = get(spec.contender)
    return python_client(contender.protocol, spec.client or contender.default_client(),
                         streaming=spec.mode == "stream")


def _reconnect(client: Any) -> None:
    try:
        client.reconnect()
    except OSError:
        pass  # still down: the next call fails and is counted as a connection error


def _sleep_until(deadline_ns: int) -> None:
    # No spinning: client processes share CPUs, and a spinning one would steal the
    # CPU the others need. Waking up late is measured (latency from the intended start).
    remaining = deadline_ns - time.perf_counter_ns()
    if remaining > 0:
        time.sleep(remaining / 1e9)


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


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

