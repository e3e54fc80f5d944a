// The open loop's one alarm: it wakes each client when its call is due. Node's timers count whole
// milliseconds on the event loop's cached clock, so setTimeout alone sends a call up to a
// millisecond or two late, and the lateness would be charged to the server. The alarm sleeps
// coarse on a timer set early by what it learnt of its wake-ups (1.5 times the mean lateness,
// capped), then yields to the event loop with setImmediate until the call is due: each yield polls
// for I/O, so replies are read while it waits, and it spins only as long as the wake-ups need.
//
// One alarm serves every client of the driver (they share one thread): the calls are due in the
// order the schedule gave them, so its waiters queue in that order.
import { nowNs } from "./hist.js";

const MAX_LEAD_NS = 2_000_000; // a wake-up later than this is the CPU being busy, which no spin would hide
const MS = 1_000_000;

const immediate = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Alarm {
  constructor() {
    this.waiters = [];
    this.head = 0;
    this.running = false;
    this.lateNs = 0; // the mean wake-up lateness so far (weight 1/8)
  }

  // Resolves when dueNs (on the nowNs clock) has come; at once if it has passed.
  until(dueNs) {
    if (nowNs() >= dueNs) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ dueNs, resolve });
      if (!this.running) this.run();
    });
  }

  leadNs() {
    return Math.min(this.lateNs * 1.5, MAX_LEAD_NS);
  }

  async run() {
    this.running = true;
    while (this.head < this.waiters.length) {
      const { dueNs } = this.waiters[this.head];
      const wakeNs = dueNs - this.leadNs();
      const ms = Math.floor((wakeNs - nowNs()) / MS);
      if (ms >= 1) {
        await sleep(ms);
        const late = nowNs() - wakeNs;
        this.lateNs += (Math.min(Math.max(late, 0), MAX_LEAD_NS) - this.lateNs) / 8;
        continue;
      }
      while (nowNs() < dueNs) await immediate();
      this.wakeDue();
    }
    this.waiters = [];
    this.head = 0;
    this.running = false;
  }

  wakeDue() {
    const now = nowNs();
    while (this.head < this.waiters.length && this.waiters[this.head].dueNs <= now) {
      this.waiters[this.head++].resolve();
    }
    if (this.head > 1024) { // drop the woken, now and then
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }
}
