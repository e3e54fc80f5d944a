// A message's shape in the contract's canonical JSON (proto field names, int64 as numbers): the
// JSON schema Fastify serializes a reply with (fast-json-stringify), and a reader that checks a
// request as protobuf's JSON parser would, in place: a value of the wrong type is a bad request,
// a missing or null field its default.
const INT32 = new Set(["int32", "sint32", "sfixed32"]);
const UINT32 = new Set(["uint32", "fixed32"]);
const INT64 = new Set(["int64", "sint64", "sfixed64", "uint64", "fixed64"]);
const DOUBLE = new Set(["double", "float"]);

export class BadRequest extends Error {}

// The JSON schema of message `name` (nested messages inline; a message that contains itself has
// no schema below its first level: it is written as it is).
export function schemaOf(messages, name, seen = new Set()) {
  if (seen.has(name)) return {};
  const inner = new Set(seen).add(name);
  const properties = {};
  for (const f of messages.get(name).fields) {
    const one = scalarSchema(f) ?? schemaOf(messages, f.message, inner);
    properties[f.name] = f.repeated ? { type: "array", items: one } : one;
  }
  return { type: "object", properties };
}

function scalarSchema(f) {
  if (INT32.has(f.type) || UINT32.has(f.type) || INT64.has(f.type)) return { type: "integer" };
  if (DOUBLE.has(f.type)) return { type: "number" };
  if (f.type === "bool") return { type: "boolean" };
  if (f.type === "string" || f.type === "bytes") return { type: "string" };
  return null;
}

// A function that checks a decoded JSON request of message `name` and returns it, int64 text and
// a number's text made numbers, a null field deleted (its default).
export function readerOf(messages, name) {
  const readers = new Map();
  const build = (message) => {
    if (readers.has(message)) return readers.get(message);
    const fields = [];
    const read = (obj, where) => {
      if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new BadRequest(`${where}: want an object`);
      for (const [f, check] of fields) {
        if (!Object.hasOwn(obj, f.name)) continue;
        const v = obj[f.name];
        if (v === null) delete obj[f.name];
        else if (f.repeated) obj[f.name] = list(v, check, `${where}.${f.name}`);
        else obj[f.name] = check(v, `${where}.${f.name}`);
      }
      return obj;
    };
    readers.set(message, read);
    for (const f of messages.get(message).fields) fields.push([f, checkerOf(f, build)]);
    return read;
  };
  const read = build(name);
  return (obj) => read(obj, name);
}

function list(v, check, where) {
  if (!Array.isArray(v)) throw new BadRequest(`${where}: want a list`);
  for (let i = 0; i < v.length; i++) v[i] = check(v[i], where);
  return v;
}

function checkerOf(f, build) {
  if (f.type === "message") {
    let read;
    return (v, where) => (read ??= build(f.message))(v, where);
  }
  if (INT32.has(f.type)) return integer(-(2 ** 31), 2 ** 31 - 1);
  if (UINT32.has(f.type)) return integer(0, 2 ** 32 - 1);
  if (INT64.has(f.type)) return int64(f.type.startsWith("u") || f.type === "fixed64");
  if (DOUBLE.has(f.type)) return double;
  if (f.type === "bool") return typed("boolean");
  if (f.type === "string" || f.type === "bytes") return typed("string");
  return (v) => v; // an enum: its name or number, as written
}

function integer(lo, hi) {
  return (v, where) => {
    const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : v;
    if (!Number.isInteger(n) || n < lo || n > hi) throw new BadRequest(`${where}: want an integer from ${lo} to ${hi}`);
    return n;
  };
}

function int64(unsigned) {
  const [lo, hi] = unsigned ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
  return (v, where) => {
    let n;
    if (typeof v === "bigint") n = v;
    else if (Number.isSafeInteger(v)) return v;
    else if (typeof v === "string" && /^-?\d+$/.test(v)) n = BigInt(v);
    else throw new BadRequest(`${where}: want a 64-bit integer`);
    if (n < lo || n > hi) throw new BadRequest(`${where}: out of the 64-bit range`);
    return n;
  };
}

function double(v, where) {
  if (typeof v === "number") return v;
  if (v === "NaN" || v === "Infinity" || v === "-Infinity") return Number(v);
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  throw new BadRequest(`${where}: want a number`);
}

function typed(kind) {
  return (v, where) => {
    if (typeof v !== kind) throw new BadRequest(`${where}: want a ${kind}`);
    return v;
  };
}
