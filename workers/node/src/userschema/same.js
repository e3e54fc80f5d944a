// Equality of two messages in protobufjs's object form (the same toObject options on both sides):
// every key on either side, NaN equal to NaN, bytes and 64-bit integers as text; and the first
// path where they differ, for a wrong answer's example.

// The first path where got and want differ ("" when they are the same), or null.
export function firstDifference(got, want, path = "$") {
  if (Number.isNaN(got) && Number.isNaN(want)) return null;
  if (got === want) return null;
  if (Array.isArray(got) && Array.isArray(want)) {
    if (got.length !== want.length) return `${path}: ${got.length} values, want ${want.length}`;
    for (let i = 0; i < got.length; i++) {
      const d = firstDifference(got[i], want[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (isObject(got) && isObject(want)) {
    for (const k of new Set([...Object.keys(got), ...Object.keys(want)])) {
      if (!(k in got)) return `${path}.${k}: absent, want ${show(want[k])}`;
      if (!(k in want)) return `${path}.${k}: ${show(got[k])}, want it absent`;
      const d = firstDifference(got[k], want[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return `${path}: got ${show(got)}, want ${show(want)}`;
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function show(v) {
  const text = JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
  return text === undefined ? String(v) : text.slice(0, 80);
}

// A message's object form without the fields whose value is their default and that track no
// presence (proto3's implicit presence: an empty string written on the wire and one left out are
// the same message), so that two writers' choices compare equal; a field with presence (a
// submessage, proto3 `optional`, a oneof's member, proto2) keeps its default.
export function withoutImplicitDefaults(Type, object) {
  const out = {};
  for (const [key, value] of Object.entries(object)) {
    const field = Type.fields[key];
    const message = field?.resolvedType?.fieldsArray ? field.resolvedType : null;
    if (!field) out[key] = value;
    else if (field.map) out[key] = message ? mapValues(value, (v) => withoutImplicitDefaults(message, v)) : value;
    else if (field.repeated) out[key] = message ? value.map((v) => withoutImplicitDefaults(message, v)) : value;
    else if (message) out[key] = value === null ? value : withoutImplicitDefaults(message, value);
    else if (field.hasPresence || !isDefault(value)) out[key] = value;
  }
  return out;
}

function mapValues(object, f) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, f(v)]));
}

function isDefault(v) {
  return (v === 0 && !Object.is(v, -0)) || v === "" || v === false || v === "0";
}

// A message's object form as text that two equal messages share whatever the order of a map's
// entries (the wire's, any writer's): every object's keys sorted, NaN, the infinities and -0 kept
// apart from what JSON would make of them (null, 0).
export function canonicalText(object) {
  return JSON.stringify(sortedKeys(object), (_, v) => (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))
    ? (Object.is(v, -0) ? "-0" : String(v)) : v));
}

function sortedKeys(v) {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isObject(v) || ArrayBuffer.isView(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys(v[k])]));
}
