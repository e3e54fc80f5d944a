// What the clients measured. They share one thread, so one tally gathers every call: the
// latencies verified (from the intended start in open loop, wrk2's correction), the failures by
// kind with an example of each, and the phase interval by interval.
import { HIGHEST_NS, clamp, decode, encode, newHistogram } from "./hist.js";

const LATE_NS = 1_000_000; // a call sent more than 1 ms after it was due is late
const EXAMPLE_LEN = 200;
export const BASE_KINDS = ["wrong_answer", "timeout", "connection", "other"];

export class Tally {
  // openLoop: keep the uncorrected and schedule-lag histograms; series: a Series, or null.
  constructor(openLoop, series = null) {
    this.hist = newHistogram();
    this.uncorrected = openLoop ? newHistogram() : null;
    this.lag = openLoop ? newHistogram() : null;
    this.messages = null;
    this.errors = {};
    this.examples = {};
    this.calls = 0;
    this.late = 0;
    this.series = series;
  }

  // One call: {startNs, endNs, kind ("" when verified), error, messages}; dueNs null in closed loop.
  add(o, dueNs, samples) {
    if (dueNs !== null && o.startNs - dueNs > LATE_NS) this.late++;
    const at = dueNs ?? o.startNs;
    if (o.kind) {
      this.errors[o.kind] = (this.errors[o.kind] ?? 0) + 1;
      if (!(o.kind in this.examples) && o.error) this.examples[o.kind] = [...String(o.error)].slice(0, EXAMPLE_LEN).join("");
      this.series?.add(at, o.kind, 0);
      return;
    }
    this.calls++;
    let latency = o.endNs - o.startNs;
    if (dueNs !== null) {
      this.uncorrected.recordValue(clamp(latency));
      this.lag.recordValue(clamp(Math.max(o.startNs - dueNs, 0)));
      latency = o.endNs - dueNs;
    }
    const ns = clamp(latency);
    this.hist.recordValue(ns);
    this.series?.add(at, "", ns);
    samples?.offer(ns);
    if (o.messages) {
      this.messages ??= newHistogram();
      for (const m of o.messages) this.messages.recordValue(clamp(m));
    }
  }
}

// The measured phase interval by interval: the calls begun (open loop: due) in each, by the
// interval's index. A few recent intervals stay open; older ones are kept encoded (a few hundred
// bytes), so a soak of hours stays small. A call that ends after its interval was closed (a slow
// one) reopens it.
export class Series {
  constructor(beganNs, intervalS, keepOpen) {
    this.beganNs = beganNs;
    this.everyNs = intervalS * 1e9;
    this.intervalS = intervalS;
    this.keepOpen = keepOpen; // how many intervals before the newest stay open
    this.open = new Map();
    this.closed = new Map();
    this.newest = 0;
  }

  add(atNs, kind, latencyNs) {
    const k = Math.max(Math.floor((atNs - this.beganNs) / this.everyNs), 0);
    const interval = this.opened(k);
    if (kind) interval.errors[kind] = (interval.errors[kind] ?? 0) + 1;
    else interval.hist.recordValue(latencyNs);
    if (k > this.newest) {
      this.newest = k;
      for (const old of this.open.keys()) if (old < k - this.keepOpen) this.close(old);
    }
  }

  opened(k) {
    let interval = this.open.get(k);
    if (!interval) {
      const closed = this.closed.get(k);
      interval = closed ? { hist: decode(closed.histogram), errors: closed.errors } : { hist: newHistogram(), errors: {} };
      this.closed.delete(k);
      this.open.set(k, interval);
    }
    return interval;
  }

  close(k) {
    const { hist, errors } = this.open.get(k);
    this.open.delete(k);
    // start_s to the microsecond, as the orchestrator adds intervals by start
    this.closed.set(k, { start_s: Math.round(k * this.intervalS * 1e6) / 1e6, calls: hist.totalCount, errors,
      histogram: encode(hist) });
    hist.destroy?.();
  }

  // Every interval with calls or errors, in order of start.
  intervals() {
    for (const k of [...this.open.keys()]) this.close(k);
    return [...this.closed.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)
      .filter((v) => v.calls > 0 || Object.keys(v.errors).length > 0);
  }
}

export { HIGHEST_NS };
