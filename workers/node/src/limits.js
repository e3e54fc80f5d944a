// The bounds every server keeps against a hostile peer (docs/worker-contract.md, "Bounds every
// server keeps"): the same numbers, and the same setting, as src/rpcarena/protocol/limits.py.

// The largest request a server reads (a gRPC message, an HTTP body): gRPC's default, over thirty
// times the largest workload request (Average of 10,000 int32 as JSON, about 120 KB).
export const MAX_REQUEST_BYTES = 4 << 20;

export const IDLE_ENV = "RPCARENA_IDLE_TIMEOUT_S";
const DEFAULT_IDLE_S = 60;

// How long a connection may send nothing, or take none of its replies, before its server closes
// it: 60 s, or RPCARENA_IDLE_TIMEOUT_S when that is a positive number below it (tests see it in
// a second). In milliseconds, as Node's timers take it.
export function idleTimeoutMs(env = process.env) {
  const text = env[IDLE_ENV] ?? "";
  const seconds = text.trim() === "" ? NaN : Number(text);
  const s = Number.isFinite(seconds) && seconds > 0 && seconds < DEFAULT_IDLE_S ? seconds : DEFAULT_IDLE_S;
  return Math.round(s * 1000);
}
