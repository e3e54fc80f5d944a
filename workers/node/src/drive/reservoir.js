// A uniform sample of at most `limit` [call_index, latency_ns] pairs over all clients
// (Algorithm R), from a fixed seed: memory stays bounded however long a run.
export class Reservoir {
  constructor(limit) {
    this.limit = limit;
    this.seen = 0;
    this.samples = [];
    this.state = 0x9e3779b9;
  }

  // A uniform integer below n (mulberry32: small, fast, and the same draws every run).
  below(n) {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  }

  offer(latencyNs) {
    const index = this.seen++;
    if (this.samples.length < this.limit) {
      this.samples.push([index, latencyNs]);
    } else if (this.limit > 0) {
      const j = this.below(this.seen);
      if (j < this.limit) this.samples[j] = [index, latencyNs];
    }
  }
}
