// The drive loop: closed and open loop, stages, shared connections, intervals, the reservoir and
// the histograms' encoding, against real servers on port 0. Counts and shapes, never durations.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decode, encode, newHistogram } from "../src/drive/hist.js";
import { ConstantPacer, PoissonPacer, StagedPacer } from "../src/drive/pacer.js";
import { Reservoir } from "../src/drive/reservoir.js";
import { driveSpec, startServer } from "./helpers.js";

const INVERT = { method: "Invert", requests: [{ value: "ab" }, { value: "xyz" }], responses: [{ value: "ba" }, { value: "zyx" }] };

function sumIntervals(result) {
  return result.intervals.reduce((n, i) => n + i.calls, 0);
}

test("histograms encode in the standard form and decode to their counts", () => {
  const h = newHistogram();
  for (const v of [1, 81234, 80112, 59_000_000_000]) h.recordValue(v);
  const text = encode(h);
  assert.match(text, /^HISTF/);
  const back = decode(text);
  assert.equal(back.totalCount, 4);
  for (const p of [0, 50, 100]) assert.equal(back.getValueAtPercentile(p), h.getValueAtPercentile(p));
});

test("the reservoir keeps at most its limit, each with its call's index", () => {
  const r = new Reservoir(10);
  for (let i = 0; i < 1000; i++) r.offer(i + 1);
  assert.equal(r.samples.length, 10);
  for (const [index, latency] of r.samples) assert.equal(latency, index + 1);
});

test("pacers: constant gaps, Poisson with the rate's mean, stages in turn", () => {
  const c = new ConstantPacer(1000);
  assert.deepEqual([c.next(), c.next(), c.next()], [0, 1e6, 2e6]);
  const p = new PoissonPacer(1000);
  let last = 0;
  for (let i = 0; i < 10000; i++) last = p.next();
  assert.ok(Math.abs(last / 1e9 - 10) < 0.5, `10,000 arrivals at 1000/s took ${last / 1e9} s`);
  const s = new StagedPacer([{ rate_per_s: 10, duration_s: 1 }, { rate_per_s: 20, duration_s: 1 }], "constant");
  const offsets = Array.from({ length: 31 }, () => s.next());
  assert.equal(offsets.filter((o) => o < 1e9).length, 10);
  assert.equal(offsets.filter((o) => o >= 1e9 && o < 2e9).length, 20);
  assert.equal(offsets[30], 2e9);
});

for (const contender of ["grpc-node", "rest-fastify"]) {
  test(`${contender}: closed loop splits the calls, the intervals add up to them`, async () => {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, ...INVERT, calls: 301, clients: 4, interval_s: 0.05, sample_limit: 50 });
      assert.equal(result.calls, 301);
      assert.equal(sumIntervals(result), 301);
      assert.equal(result.samples.length, 50);
      assert.equal(decode(result.histogram).totalCount, 301);
      assert.equal(result.histogram_uncorrected, null);
    } finally {
      await server.stop();
    }
  });

  test(`${contender}: open loop keeps its schedule's count and says how late each call went`, async () => {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, ...INVERT, calls: null, duration_s: 1, rate_per_s: 200,
        arrival: "poisson", clients: 4, schedule_offset_ns: 1_000_000 });
      assert.ok(result.calls > 100 && result.calls <= 260, `${result.calls} calls at 200/s for 1 s`);
      assert.equal(decode(result.histogram_uncorrected).totalCount, result.calls);
      assert.equal(decode(result.histogram_schedule_lag).totalCount, result.calls);
      assert.equal(sumIntervals(result), result.calls);
      assert.ok(Number.isInteger(result.late_calls));
    } finally {
      await server.stop();
    }
  });

  test(`${contender}: stages count each call in the stage it was due in`, async () => {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, ...INVERT, calls: null, duration_s: 1.2, rate_per_s: 50,
        stages: [{ rate_per_s: 50, duration_s: 0.6 }, { rate_per_s: 100, duration_s: 0.6 }], clients: 2 });
      assert.equal(result.stages.length, 2);
      assert.equal(result.stages[0].calls, 30);
      assert.equal(result.stages[1].calls, 60);
      assert.equal(result.calls, 90);
    } finally {
      await server.stop();
    }
  });

  test(`${contender}: clients share the spec's connections`, async () => {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, ...INVERT, calls: 200, clients: 8, connections: 2 });
      assert.equal(result.calls, 200);
      assert.equal(result.connections, 2);
      assert.ok(result.inflight_max >= 1 && result.inflight_mean >= 1);
      if (contender === "rest-fastify") {
        assert.ok(result.inflight_max <= 2, "HTTP/1.1 carries one call at a time on a connection");
        assert.equal(decode(result.histogram_conn_wait).totalCount, 200);
      } else {
        assert.ok(result.inflight_max > 2, "a gRPC channel carries many calls at once");
        assert.equal(result.histogram_conn_wait, undefined);
      }
    } finally {
      await server.stop();
    }
  });
}
