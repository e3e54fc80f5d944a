// The well-known types' proto3 JSON forms (a Timestamp "1970-01-01T00:00:00Z", a Duration "1.5s", a
// Struct as a JSON object, a wrapper as its bare value, an Any with "@type", a FieldMask
// "a,b.cD") as protobufjs's fromObject reads their messages: protobufjs has no JSON mapping of
// them (its wrappers.js maps only an Any's "@type" to a message of the schema), and the workloads
// keep a sample in proto JSON. A Node user builds the same objects ({seconds, nanos}, ...) in code.

const WRAPPERS = new Set(["DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value",
  "BoolValue", "StringValue", "BytesValue"]);
const SCALARS = new Set(["Timestamp", "Duration", ...WRAPPERS]); // fields of implicit presence only
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const DURATION = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const PREFIX = ".google.protobuf.";

// Is `Type` a well-known type with a JSON form of its own?
export function isWellKnown(Type) {
  return Type.fullName.startsWith(PREFIX) && FORMS[Type.name] !== undefined;
}

// `value` (the type's proto JSON) as fromObject reads it; `message(Type, json)` reads any other
// message (an Any's), the caller's own reading. A scalar at its default is left out (a Value's
// member, in a oneof, is not): protobufjs writes every field an object sets, which would change
// the bytes of an Any that holds it.
export function wellKnownObject(Type, value, message) {
  const object = FORMS[Type.name](value, Type, message);
  if (!SCALARS.has(Type.name)) return object;
  return Object.fromEntries(Object.entries(object).filter(([, v]) => !isZero(v)));
}

function isZero(v) {
  return Object.is(v, 0) || v === "0" || v === "" || v === false;
}

const FORMS = {
  Timestamp: timestamp,
  Duration: duration,
  FieldMask: (v) => ({ paths: v === "" ? [] : v.split(",").map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) }),
  Struct: (v) => struct(v),
  Value: (v) => value(v),
  ListValue: (v) => ({ values: v.map(value) }),
  Empty: () => ({}),
  Any: any,
  ...Object.fromEntries([...WRAPPERS].map((name) => [name, (v) => ({ value: wrapped(name, v) })])),
};

function timestamp(text) {
  const m = RFC3339.exec(text);
  if (!m) throw new Error(`not an RFC 3339 timestamp: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, fraction = "", zone] = m;
  const day = new Date(0);
  day.setUTCFullYear(Number(y), Number(mo) - 1, Number(d)); // years 1-99 too (Date.UTC reads them as 19xx)
  const offset = zone === "Z" ? 0 : (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4)) * 60);
  const seconds = day.getTime() / 1000 + Number(h) * 3600 + Number(mi) * 60 + Number(s) - offset;
  return { seconds: String(seconds), nanos: Number(fraction.padEnd(9, "0")) };
}

function duration(text) {
  const m = DURATION.exec(text);
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  const [, minus, whole, fraction = ""] = m;
  const sign = minus ? -1 : 1;
  return { seconds: minus && whole !== "0" ? `-${whole}` : whole, nanos: sign * Number(fraction.padEnd(9, "0")) || 0 };
}

function struct(object) {
  return { fields: Object.fromEntries(Object.entries(object).map(([k, v]) => [k, value(v)])) };
}

function value(v) {
  if (v === null) return { null_value: 0 };
  if (typeof v === "number" || typeof v === "bigint") return { number_value: Number(v) };
  if (typeof v === "string") return { string_value: v };
  if (typeof v === "boolean") return { bool_value: v };
  if (Array.isArray(v)) return { list_value: { values: v.map(value) } };
  return { struct_value: struct(v) };
}

function wrapped(name, v) {
  if (name === "DoubleValue" || name === "FloatValue") return Number(v); // "NaN", "Infinity" too
  if (name === "Int64Value" || name === "UInt64Value") return String(v);
  return v; // bytes stay base64, which fromObject decodes
}

// {"@type": URL, ...the message's fields} or, for a well-known type, {"@type": URL, "value": its JSON}.
function any(json, Type, message) {
  const url = json["@type"];
  if (url === undefined) return {};
  const inner = Type.root.lookupType(url.slice(url.lastIndexOf("/") + 1));
  const { "@type": _, ...fields } = json;
  const object = isWellKnown(inner) ? wellKnownObject(inner, fields.value, message) : message(inner, fields);
  return { type_url: url, value: inner.encode(inner.fromObject(object)).finish() };
}
