// How the measured phase is paced: next(client) says whether that client makes another call and,
// in open loop, when the call was due (ns on the nowNs clock; null in closed loop: due now).
import { nowNs } from "./hist.js";

// The closed loop: each client's share of `calls` (the first calls % clients do one more), or a deadline.
export class Quota {
  constructor(clients, calls, deadlineNs) {
    this.deadlineNs = deadlineNs;
    this.left = calls === null ? null
      : Array.from({ length: clients }, (_, i) => Math.floor(calls / clients) + (i < calls % clients ? 1 : 0));
  }

  next(client) {
    if (this.left === null) return nowNs() < this.deadlineNs ? { due: null } : null;
    if (this.left[client] === 0) return null;
    this.left[client]--;
    return { due: null };
  }
}

// The open loop: arrivals over all clients together, each taken by whichever client is free, so a
// stalled server delays calls past their due time. Nothing is due at or after startNs + spanNs.
export class Schedule {
  constructor(pacer, startNs, calls, spanNs) {
    this.pacer = pacer;
    this.startNs = startNs;
    this.left = calls === null ? -1 : calls;
    this.spanNs = spanNs;
  }

  next() {
    if (this.left === 0) return null;
    const offset = this.pacer.next();
    if (this.left < 0 && offset >= this.spanNs) return null;
    if (this.left > 0) this.left--;
    return { due: this.startNs + offset };
  }
}
