// A handler's own cost (`--server-work 300us`, `--server-wait 2ms`), as
// src/rpcarena/userschema/work.py spends it: CPU in a loop until the clock has advanced by the
// asked microseconds, in chunks calibrated at start (10 us of CPU each, or a twentieth of the work
// if less), then a wait that sleeps without CPU, as a database call waits. Node 20 has no thread
// CPU clock (process.threadCpuUsage came in Node 23.9), so the clock is the process's CPU
// (getrusage): on its one event loop the handler's thread is nearly all of it.

const ROUNDS = 5;
const LOOPS = 200_000;
const CHUNK_US = 10;

let sink = 0; // keeps the spin from being optimized away

function spin(loops) {
  let total = 0;
  for (let i = 0; i < loops; i++) total += (i * i) % 7;
  sink += total;
}

function cpuNs() {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

// How many spin loops this process runs in a microsecond of its CPU.
export function loopsPerUs() {
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const start = cpuNs();
    spin(LOOPS);
    best = Math.min(best, cpuNs() - start);
  }
  return LOOPS / Math.max(best / 1000, 1e-3);
}

// { cost: async () => void, calibration: the line the server logs }.
export function handlerCost(workUs, waitUs) {
  if (!workUs && !waitUs) return { cost: async () => {}, calibration: "no server work or wait" };
  const rate = workUs ? loopsPerUs() : 0;
  const chunk = Math.max(1, Math.round(Math.min(CHUNK_US, workUs / 20) * rate));
  const workNs = workUs * 1000, waitMs = waitUs / 1000;
  const work = () => {
    for (const start = cpuNs(); cpuNs() - start < workNs;) spin(chunk);
  };
  const cost = async () => {
    if (workNs) work();
    if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
  };
  const calibration = `server work ${workUs}us of process CPU (Node 20 has no thread clock), in chunks of ${chunk} loops `
    + `(${rate.toFixed(1)} loops/us), wait ${waitUs}us`;
  return { cost, work, calibration };
}

// What `calibrate` prints: the work run alone `calls` times, and the CPU it took.
export function calibrate(workUs, calls) {
  const { work, calibration } = handlerCost(workUs, 0);
  const start = cpuNs();
  for (let i = 0; i < calls; i++) work();
  return { asked_us: workUs, calls, thread_cpu_ns: Math.round(cpuNs() - start), calibration };
}
