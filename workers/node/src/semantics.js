// What each operation of proto/arena.proto computes, as src/rpcarena/protocol/semantics.py
// defines it; proto/vectors/arena.json pins every answer (test/vectors.test.js). An operation with
// no row is an echo. Values are plain: a message's fields by name, int32 as numbers.

// The cap on GetRandNums' count and on any count a peer announces, the same in every language.
export const MAX_COUNT = 1_000_000;

// A request the operation will not run: the caller's error (gRPC INVALID_ARGUMENT, HTTP 400).
export class Refused extends Error {}

function checkCount(what, count) {
  if (count > MAX_COUNT) throw new Refused(`${what} ${count} is over the cap of ${MAX_COUNT}: ask for fewer`);
}

function vector(v) {
  return [v?.x ?? 0, v?.y ?? 0, v?.z ?? 0];
}

// Summed left to right as dx*dx + dy*dy + dz*dz: JavaScript never fuses a multiply-add.
export function distance(a, b) {
  const [ax, ay, az] = vector(a);
  const [bx, by, bz] = vector(b);
  const dx = ax - bx, dy = ay - by, dz = az - bz;
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

// double(sum as int64) / count, 0 when empty: a double sums int32 values exactly up to 2^22 of
// them, more than a request of 4 MiB can hold.
export function average(values) {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

// Numerical Recipes' LCG over uint32, each state read as a signed int32.
export function randNums(count, seed) {
  checkCount("GetRandNums count", count);
  const out = new Array(Math.max(count, 0));
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state | 0;
  }
  return out;
}

// Reversed by code points: the spread splits a string into code points, not UTF-16 units.
export function invert(word) {
  return [...word].reverse().join("");
}

// The sum of every field as an int32 that wraps, as Go, Rust and Java add int32.
export function checksum(message, fields) {
  let total = 0;
  for (let i = 1; i <= fields; i++) total = (total + (message[`f${i}`] ?? 0)) | 0;
  return total;
}

// method -> (request) => reply, for every operation that is not an echo.
export const OPERATIONS = {
  Void: () => ({}),
  Distance: (r) => ({ value: distance(r.a, r.b) }),
  SayHello: (r) => ({ message: "Hello " + (r.name ?? "") }),
  Average: (r) => ({ value: average(r.values ?? []) }),
  GetRandNums: (r) => ({ values: randNums(r.count ?? 0, r.seed ?? 0) }),
  Invert: (r) => ({ value: invert(r.value ?? "") }),
  ChecksumLargeData128: (r) => ({ value: checksum(r, 128) }),
  ChecksumLargeData8192: (r) => ({ value: checksum(r, 8192) }),
};

// Streams: each message is answered as this unary operation answers it.
export const STREAMS = { InvertStream: "Invert" };

// The answer to one request of `method` (a stream's: to one of its messages).
export function answerer(method) {
  const op = OPERATIONS[STREAMS[method] ?? method];
  return op ?? ((request) => request);
}
