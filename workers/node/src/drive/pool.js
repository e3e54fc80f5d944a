// The spec's `connections`: the run's clients sharing M of them. Where a connection multiplexes (a
// gRPC channel) client i calls on connection i mod M, many calls in flight on each; elsewhere
// (HTTP/1.1) a call borrows a free connection and gives it back, its wait for one timed.
import { newHistogram, nowNs, clamp } from "./hist.js";

export class Pool {
  constructor(client, n) {
    this.client = client;
    this.slots = Array.from({ length: n }, () => ({ conn: null, dialing: null }));
    this.multiplexes = !!client.multiplexes;
    this.free = this.multiplexes ? null : [...this.slots];
    this.waiting = [];
    this.gauge = new Gauge();
    this.waits = newHistogram();
  }

  // The slot client `id` calls on next: its share of a multiplexed connection, or a free one
  // (awaited, the wait recorded).
  async acquire(id) {
    if (this.multiplexes) return this.slots[id % this.slots.length];
    const asked = nowNs();
    const slot = this.free.length > 0 ? this.free.pop() : await new Promise((resolve) => this.waiting.push(resolve));
    this.waits.recordValue(clamp(nowNs() - asked));
    return slot;
  }

  // A borrowed slot goes back (to the longest waiter first); a broken connection is closed, to be
  // dialled again by the next call on it (a gRPC channel reconnects by itself).
  release(slot, broken) {
    if (broken && !this.multiplexes) drop(slot);
    if (this.multiplexes) return;
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  // The slot's connection, dialled once however many calls ask at once.
  async conn(slot, timeoutMs) {
    if (slot.conn) return slot.conn;
    slot.dialing ??= this.client.dial(timeoutMs).then(
      (conn) => { slot.conn = conn; slot.dialing = null; return conn; },
      (error) => { slot.dialing = null; throw error; });
    return slot.dialing;
  }

  close() {
    for (const slot of this.slots) drop(slot);
  }
}

function drop(slot) {
  slot.conn?.close();
  slot.conn = null;
}

// The calls in flight at once: the most, and the mean sampled at each call's start (that call
// counted), since reset.
export class Gauge {
  constructor() {
    this.now = 0;
    this.reset();
  }

  reset() {
    this.max = 0;
    this.starts = 0;
    this.total = 0;
  }

  enter() {
    this.now++;
    this.starts++;
    this.total += this.now;
    if (this.now > this.max) this.max = this.now;
  }

  leave() {
    this.now--;
  }

  mean() {
    return this.starts > 0 ? this.total / this.starts : 0;
  }
}
