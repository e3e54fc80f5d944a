// The open loop's arrival times, as offsets in ns from the phase's start: constant spacing, or
// Poisson arrivals from a fixed seed (two runs of one spec see the same arrivals), and stages
// paced each in turn at its own rate from its own start (k6's ramping arrival rate).

export class ConstantPacer {
  constructor(ratePerS) {
    this.gapNs = 1e9 / ratePerS;
    this.n = 0;
  }

  next() {
    return this.n++ * this.gapNs;
  }
}

export class PoissonPacer {
  constructor(ratePerS, seed = 1) {
    this.rate = ratePerS;
    this.t = 0;
    this.state = seed >>> 0;
  }

  uniform() { // mulberry32, in (0, 1]
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967296;
  }

  next() {
    const offset = this.t;
    this.t += (-Math.log(this.uniform()) / this.rate) * 1e9;
    return offset;
  }
}

export function newPacer(ratePerS, arrival) {
  return arrival === "poisson" ? new PoissonPacer(ratePerS) : new ConstantPacer(ratePerS);
}

// Past the last stage it gives the stages' end, which ends a phase of that duration.
export class StagedPacer {
  constructor(stages, arrival) {
    this.stages = stages;
    this.arrival = arrival;
    this.k = 0;
    this.beginNs = 0;
    this.current = null;
  }

  next() {
    while (this.k < this.stages.length) {
      const stage = this.stages[this.k];
      this.current ??= newPacer(stage.rate_per_s, this.arrival);
      const offset = this.current.next();
      if (offset < stage.duration_s * 1e9) return this.beginNs + offset;
      this.beginNs += stage.duration_s * 1e9;
      this.k++;
      this.current = null;
    }
    return this.beginNs;
  }
}

// Each stage's end, in ns from the phase's start.
export function stageEnds(stages) {
  let end = 0;
  return (stages ?? []).map((stage) => (end += stage.duration_s * 1e9));
}

// The stage a call due at offsetNs belongs to.
export function stageOf(ends, offsetNs) {
  const k = ends.findIndex((end) => end > offsetNs);
  return k < 0 ? ends.length - 1 : k;
}
