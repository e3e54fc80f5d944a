// The drive spec of the worker contract (docs/worker-contract.md, `drive`), read from stdin and
// checked before any call: a spec that cannot run is a UsageError (exit 2, one line on stderr).
import { parseJSON } from "./json.js";

export const CONTRACT = 1;

export class UsageError extends Error {}

const DEFAULTS = {
  contract: CONTRACT, requests: [], responses: [], clients: 1, warmup_s: 0, calls: null, duration_s: null,
  timeout_ms: 5000, sample_limit: 10000, rate_per_s: null, arrival: "constant", stages: null, mode: "unary",
  sync: false, interval_s: 1, payloads_b64: null, client: null, external: null, schema_b64: null,
  connections: null, schedule_offset_ns: null, warmup_max_s: null,
};
// Keys only the Python drivers read (which Python client): read here, and ignored.
export const PYTHON_ONLY = new Set(["client"]);
const MODES = ["unary", "stream", "client_stream", "server_stream"];

// The spec with every default filled in and its numbers as plain numbers; its requests and
// responses keep every int64 (BigInt where a double cannot hold it).
export function specOf(text) {
  let raw;
  try {
    raw = parseJSON(text);
  } catch (error) {
    throw new UsageError(`bad spec JSON on stdin: ${error.message}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new UsageError("the spec must be a JSON object");
  const unknown = Object.keys(raw).filter((k) => !(k in DEFAULTS) && !["contender", "target", "method"].includes(k));
  if (unknown.length) throw new UsageError(`spec: unknown key(s) ${unknown.join(", ")} (contract ${CONTRACT})`);
  const spec = { ...DEFAULTS };
  for (const [k, v] of Object.entries(raw)) {
    spec[k] = typeof v === "bigint" && !["requests", "responses"].includes(k) ? Number(v) : v;
  }
  check(spec);
  return spec;
}

function check(s) {
  const problem = firstProblem(s);
  if (problem) throw new UsageError(`spec: ${problem}`);
}

function firstProblem(s) {
  for (const key of ["contender", "target", "method"]) {
    if (typeof s[key] !== "string" || s[key] === "") return `give ${key} (a string)`;
  }
  if (s.contract !== CONTRACT) return `contract ${s.contract}: this worker speaks contract ${CONTRACT}`;
  if (!Number.isInteger(s.clients) || s.clients < 1) return "clients must be at least 1";
  if (s.calls === null && s.duration_s === null) return "give calls or duration_s";
  if ((s.calls !== null && !(s.calls >= 0)) || (s.duration_s !== null && !(s.duration_s >= 0))) {
    return "calls and duration_s must not be negative";
  }
  if (!(s.timeout_ms > 0)) return "timeout_ms must be positive";
  if (s.rate_per_s !== null && !(s.rate_per_s > 0)) return "rate_per_s must be positive";
  if (!(s.interval_s > 0)) return "interval_s must be positive";
  if (!["constant", "poisson"].includes(s.arrival)) return `arrival ${JSON.stringify(s.arrival)}: use constant or poisson`;
  if (!MODES.includes(s.mode)) return `mode ${JSON.stringify(s.mode)}: use ${MODES.join(", ")}`;
  if (s.connections !== null && !(s.connections >= 1 && s.connections <= s.clients)) {
    return `connections ${s.connections}: give 1 to clients (${s.clients})`;
  }
  if (s.stages !== null && s.stages.length > 0) {
    if (s.rate_per_s === null) return "stages need rate_per_s (the first stage's)";
    if (!s.stages.every((st) => st.rate_per_s > 0 && st.duration_s > 0)) {
      return "stages: each needs a positive rate_per_s and duration_s";
    }
  }
  return null;
}

// The call's deadline in ms: an external target's exact timeout_us when given, else timeout_ms.
export function timeoutMs(spec) {
  const us = spec.external?.timeout_us;
  return typeof us === "number" && us > 0 ? us / 1000 : spec.timeout_ms;
}

// The spec's requests and responses, paired; none, or unequal counts, is a UsageError.
export function requestPairs(spec) {
  if (spec.requests.length === 0 || spec.requests.length !== spec.responses.length) {
    throw new UsageError(`spec needs as many responses as requests, at least one (got ${spec.requests.length} and ${spec.responses.length})`);
  }
  return spec.requests.map((request, i) => [request, spec.responses[i]]);
}
