import net from "node:net";
import { readFileSync } from "node:fs";

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

// The listen backlog every server asks for: the system's somaxconn (a burst of connections waits in
// the kernel's queue instead of being refused), not Node's 511.
export function listenBacklog() {
  try {
    const n = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8").trim());
    return Number.isInteger(n) && n > 0 ? n : 511;
  } catch {
    return 511;
  }
}

// Runs `start` with every listen it makes given listenBacklog(): for a library that listens itself
// with no backlog option (grpc-js's bindAsync calls http2Server.listen({host, port}, cb)).
export async function withBacklog(start) {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (options, ...rest) {
    const given = options && typeof options === "object" && !Array.isArray(options) && options.backlog === undefined
      ? { ...options, backlog: listenBacklog() } : options;
    return listen.call(this, given, ...rest);
  };
  try {
    return await start();
  } finally {
    net.Server.prototype.listen = listen;
  }
}
