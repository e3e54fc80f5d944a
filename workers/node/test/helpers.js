// What the tests share: the repository's golden documents and vectors, a server of a contender on
// port 0 in this process, and a drive of a spec against it.
import { readFileSync, readdirSync } from "node:fs";
import { spawn } from "node:child_process";
import { lookup } from "../src/contenders/index.js";
import { drive } from "../src/drive/run.js";
import { parseJSON } from "../src/json.js";
import { specOf } from "../src/spec.js";
import { stringifyJSON } from "../src/json.js";

export const REPO = new URL("../../../", import.meta.url);
export const CONTRACT_DIR = new URL("proto/contract/", REPO);
export const MAIN = new URL("../src/main.js", import.meta.url).pathname;

export function vectors() {
  return parseJSON(readFileSync(new URL("proto/vectors/arena.json", REPO), "utf8")).vectors;
}

export function fields() {
  return JSON.parse(readFileSync(new URL("fields.json", CONTRACT_DIR), "utf8"));
}

export function goldenSpecs() {
  return readdirSync(CONTRACT_DIR).filter((f) => /^spec\..*\.json$/.test(f))
    .map((name) => ({ name, text: readFileSync(new URL(name, CONTRACT_DIR), "utf8") }));
}

// A server of contender id on 127.0.0.1, port 0; its target and stop().
export async function startServer(id, opts = {}) {
  const server = lookup(id).newServer(opts);
  const port = await server.listen("127.0.0.1", 0);
  return { target: `127.0.0.1:${port}`, port, stop: () => server.stop() };
}

// The result of driving `fields` (a spec's keys; the rest the contract's defaults) in this process.
export async function driveSpec(fieldsOf) {
  const spec = specOf(stringifyJSON({ warmup_s: 0, ...fieldsOf }));
  return drive(spec, lookup(spec.contender).newClient(spec), null);
}

// Every method's vectors: method -> {requests, responses}.
export function byMethod() {
  const out = new Map();
  for (const v of vectors()) {
    if (!out.has(v.method)) out.set(v.method, { requests: [], responses: [] });
    out.get(v.method).requests.push(v.request);
    out.get(v.method).responses.push(v.response);
  }
  return out;
}

// The JSON kind of a value as Python's json module reads its text: a number with a fraction or an
// exponent is a float ("number"), without one an integer.
export function kindOf(value, text) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" || typeof value === "bigint") return /[.eE]/.test(text) ? "number" : "integer";
  return typeof value === "object" ? "object" : typeof value;
}

// How a document breaks the table of fields.json's `what`, as the orchestrator would refuse it.
export function problems(what, doc) {
  const table = fields()[what];
  const out = [];
  for (const [key, f] of Object.entries(table)) if (f.required && !(key in doc)) out.push(`required key ${key} missing`);
  for (const [key, value] of Object.entries(doc)) {
    const f = table[key];
    const kind = kindOf(value, JSON.stringify(value));
    if (!f) out.push(`key ${key} is not in the contract`);
    else if (kind !== f.json && !(kind === "null" && f.nullable) && !(kind === "integer" && f.json === "number")) {
      out.push(`key ${key} is ${kind}, want ${f.json}`);
    }
  }
  return out;
}

// Runs the worker's command line; its exit code, stdout and stderr.
export function runWorker(args, input = "", env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
    let stdout = "", stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

// A server started as the orchestrator starts it (stdin a pipe): its ready line, and stop().
export function spawnServer(id, env = {}) {
  const child = spawn(process.execPath, [MAIN, "serve", "--contender", id, "--host", "127.0.0.1", "--port", "0"],
    { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) {
        const ready = JSON.parse(out.slice(0, out.indexOf("\n")));
        resolve({ ready, target: `127.0.0.1:${ready.port}`, child,
          stop: () => new Promise((done) => { child.on("close", done); child.kill("SIGTERM"); }) });
      }
    });
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`server exited ${code} before its ready line`)));
  });
}
