// The measured phase of the contract's `drive` against any contender's client: warm-up, barrier,
// closed or open loop, and the result document. The clients are async loops on one thread (Node's
// own way to be concurrent); they share one tally and, in open loop, one schedule and one alarm.
import { Alarm } from "./alarm.js";
import { encode, nowNs } from "./hist.js";
import { newPacer, StagedPacer, stageEnds, stageOf } from "./pacer.js";
import { Quota, Schedule } from "./plan.js";
import { Pool } from "./pool.js";
import { Reservoir } from "./reservoir.js";
import { Session } from "./session.js";
import { BASE_KINDS, Series, Tally } from "./tally.js";
import { CONTRACT, timeoutMs } from "../spec.js";

// Runs spec with a prepared client; atBarrier (may be null) runs once every client has warmed up,
// before the barrier opens (the contract's sync handshake). Failed calls are data in the result.
export async function drive(spec, client, atBarrier) {
  const timeout = timeoutMs(spec);
  const pool = spec.connections === null ? null : new Pool(client, spec.connections);
  const sessions = Array.from({ length: spec.clients }, (_, i) => new Session(i, client, timeout, pool));
  const warmEnd = nowNs() + spec.warmup_s * 1e9;
  await Promise.all(sessions.map((s) => warm(s, warmEnd)));
  await atBarrier?.();
  return measure(spec, sessions, pool, timeout);
}

async function warm(session, warmEndNs) {
  if (!session.pool) await session.connect().catch(() => {}); // a failure is retried, and counted, by the first call
  while (nowNs() < warmEndNs) await session.call();
}

async function measure(spec, sessions, pool, timeout) {
  const openLoop = spec.rate_per_s !== null;
  const cpu0 = process.cpuUsage();
  const beganMono = process.hrtime.bigint();
  const began = nowNs();
  // intervals stay open while a call begun in them may still end: the timeout and a second more
  const series = new Series(began, spec.interval_s, Math.ceil((timeout / 1000 + 1) / spec.interval_s));
  const tally = new Tally(openLoop, series);
  const ends = stageEnds(spec.stages);
  const staged = ends.map(() => new Tally(true));
  const samples = new Reservoir(spec.sample_limit);
  const plan = planOf(spec, began);
  const alarm = new Alarm();
  pool?.gauge.reset(); // every client waited at the barrier: none is in flight
  const lastEnds = await Promise.all(sessions.map(async (s, i) => {
    for (let turn = plan.next(i); turn !== null; turn = plan.next(i)) {
      if (turn.due !== null) await alarm.until(turn.due);
      const o = await s.call();
      tally.add(o, turn.due, samples);
      if (ends.length > 0) staged[stageOf(ends, turn.due - began)].add(o, turn.due, null);
    }
    return nowNs();
  }));
  const wallNs = Math.max(began, ...lastEnds) - began;
  const cpu = process.cpuUsage(cpu0);
  for (const s of sessions) s.close();
  pool?.close();
  return result({ spec, tally, staged, samples, series, pool, wallNs, cpu, beganMono });
}

function planOf(spec, beganNs) {
  const durationNs = (spec.duration_s ?? 0) * 1e9;
  if (spec.rate_per_s === null) return new Quota(spec.clients, spec.calls, beganNs + durationNs);
  const pacer = spec.stages?.length ? new StagedPacer(spec.stages, spec.arrival) : newPacer(spec.rate_per_s, spec.arrival);
  const shift = spec.schedule_offset_ns ?? 0; // calls due from began+shift, none at or after began+duration
  return new Schedule(pacer, beganNs + shift, spec.calls, durationNs - shift);
}

function result({ spec, tally, staged, samples, series, pool, wallNs, cpu, beganMono }) {
  const errors = { ...tally.errors };
  for (const kind of BASE_KINDS) errors[kind] ??= 0;
  const res = {
    contract: CONTRACT, calls: tally.calls, errors, error_examples: tally.examples, wall_s: wallNs / 1e9,
    cpu_user_s: cpu.user / 1e6, cpu_sys_s: cpu.system / 1e6, histogram: encode(tally.hist),
    samples: samples.samples, late_calls: tally.late, histogram_uncorrected: null,
    start_mono_ns: Number(beganMono), end_mono_ns: Number(beganMono) + Math.round(wallNs),
    intervals: series.intervals(),
  };
  if (tally.uncorrected) {
    res.histogram_uncorrected = encode(tally.uncorrected);
    res.histogram_schedule_lag = encode(tally.lag);
  }
  if (tally.messages) {
    res.messages = tally.messages.totalCount;
    res.histogram_messages = encode(tally.messages);
  }
  if (staged.length > 0) {
    res.stages = staged.map((t) => ({ calls: t.calls, histogram: encode(t.hist),
      histogram_uncorrected: encode(t.uncorrected), histogram_schedule_lag: encode(t.lag) }));
  }
  if (pool) {
    Object.assign(res, { connections: pool.slots.length, inflight_max: pool.gauge.max, inflight_mean: pool.gauge.mean() });
    if (!pool.multiplexes) res.histogram_conn_wait = encode(pool.waits);
  }
  return res;
}

