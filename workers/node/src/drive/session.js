// One client of a run: its own connection (or the run's shared pool of them) and its call counter
// k. A call sends request (id + k) mod len, times it, and checks the reply.
import { nowNs } from "./hist.js";

export class Session {
  constructor(id, client, timeoutMs, pool) {
    this.id = id;
    this.client = client;
    this.timeoutMs = timeoutMs;
    this.pool = pool;
    this.conn = null;
    this.k = 0;
  }

  async call() {
    const idx = (this.id + this.k++) % this.client.len;
    const asked = nowNs();
    let slot = null, conn;
    try {
      slot = this.pool ? await this.pool.acquire(this.id) : null;
      conn = slot ? await this.pool.conn(slot, this.timeoutMs) : await this.connect();
    } catch (error) {
      if (slot) this.pool.release(slot, true);
      const now = nowNs();
      return { startNs: now, endNs: now, kind: this.client.classify(error), error };
    }
    // a pooled call is timed as its caller sees it: the wait for a connection included
    const startNs = slot && !this.pool.multiplexes ? asked : nowNs();
    const o = await this.send(conn, idx, startNs);
    const broken = o.kind === "connection" || o.kind === "timeout";
    if (slot) this.pool.release(slot, broken);
    else if (broken) this.close();
    return o;
  }

  async send(conn, idx, startNs) {
    this.pool?.gauge.enter();
    let reply, endNs;
    try {
      reply = await conn.call(idx, this.timeoutMs);
      endNs = nowNs();
    } catch (error) {
      return { startNs, endNs: nowNs(), kind: this.client.classify(error), error };
    } finally {
      this.pool?.gauge.leave();
    }
    if (endNs - startNs > this.timeoutMs * 1e6) { // a reply later than the timeout is a timeout
      return { startNs, endNs, kind: "timeout", error: `the reply came after ${((endNs - startNs) / 1e6).toFixed(1)} ms, over timeout_ms` };
    }
    if (!this.client.matches(idx, reply)) {
      return { startNs, endNs, kind: "wrong_answer", error: { toString: () => this.client.explain(idx, reply) } };
    }
    return { startNs, endNs, kind: "", messages: reply?.messageLatenciesNs };
  }

  // The session's own connection, dialled unless it holds one (dialling is never timed).
  async connect() {
    this.conn ??= await this.client.dial(this.timeoutMs);
    return this.conn;
  }

  close() {
    this.conn?.close();
    this.conn = null;
  }
}
