// A method of a user's schema (`rpcarena run --proto`), loaded at run time from its compiled
// descriptor set, as a Node user loads a .proto: @grpc/proto-loader's definition (the path, the
// stream flags, serializers over protobufjs's fromObject/encode and decode/toObject), beside
// protobufjs's types of the same schema for what the worker computes outside a call (the pairs of a
// reply file, the expected replies). Both are built from one JSON of the schema (root.js).
import { createRequire } from "node:module";
import protoLoader from "@grpc/proto-loader";
import { UsageError } from "../spec.js";
import { schemaJSON } from "./root.js";
import { isWellKnown, wellKnownObject } from "./wellknown.js";

const require = createRequire(import.meta.url);
const protobuf = require("protobufjs");
const NULL_HOLDER = ".google.protobuf.Value"; // where a JSON null is a value (null_value), not an absent field

// grpc-node's own examples load with these (route_guide): proto names, 64-bit integers as text,
// enums by name, the oneof's case named; but not `defaults: true`, which puts every absent field in
// the handler's object with its default, so that an echoed object sets them all: a proto2 or
// edition 2023 field, an extension, left unset would come back set (a different message).
export const SERVER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: false, oneofs: true };
// The driver reads replies as the workloads keep them (proto names, enums as numbers, bytes in
// base64), with presence kept: a field absent stays absent, so absent is never read as empty.
export const DRIVER_OPTIONS = { keepCase: true, longs: String, enums: Number, bytes: String, defaults: false, oneofs: false };

// The method `key` ("pkg.Service/Method") of the set's bytes, loaded with `options`.
export function userMethod(setBytes, key, options) {
  const slash = key.lastIndexOf("/");
  const service = key.slice(0, slash), name = key.slice(slash + 1);
  let definition, root;
  try {
    const json = schemaJSON(setBytes);
    definition = protoLoader.fromJSON(json, options);
    root = protobuf.Root.fromJSON(json);
    root.resolveAll();
  } catch (error) {
    throw new UsageError(`the user's schema does not load in protobufjs: ${error.message}`);
  }
  const def = definition[service]?.[name];
  if (!def || !def.path) throw new UsageError(`no method ${key} in the user's schema`);
  const method = root.lookupService(service).methods[name];
  return {
    key, def, service, name, Req: method.resolvedRequestType, Res: method.resolvedResponseType,
    streaming: def.requestStream && def.responseStream,
    oneWay: def.requestStream !== def.responseStream ? (def.requestStream ? "client" : "server") : null,
  };
}

// A message in the workloads' JSON (proto names, 64-bit integers as numbers or BigInt, bytes in
// base64, enums as numbers, an extension keyed "[pkg.name]", the well-known types in their own
// JSON forms) as protobufjs's fromObject reads it.
export function fromCanonical(Type, value) {
  return Type.fromObject(asObject(Type, value));
}

// A message as a Node user hands it to a call: a plain object (proto-loader's serializer runs
// fromObject on it at every call), of the same schema's types as the serializer's own.
export function plainObject(Type, message) {
  return Type.toObject(message, { longs: String, defaults: false });
}

// 64-bit integers as text, an extension's key as protobufjs names its field (".pkg.name"), and
// the well-known types' JSON forms as their messages (wellknown.js).
function asObject(Type, value) {
  if (isWellKnown(Type)) return wellKnownObject(Type, value, asObject);
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    const name = key.startsWith("[") && key.endsWith("]") ? `.${key.slice(1, -1)}` : key;
    const field = Type.fields[name];
    const message = field?.resolvedType instanceof protobuf.Type ? field.resolvedType : null;
    if (!message || (v === null && message.fullName !== NULL_HOLDER)) out[name] = bigintsAsText(v); // null: absent
    else if (field.map) out[name] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asObject(message, x)]));
    else if (field.repeated) out[name] = v.map((x) => asObject(message, x));
    else out[name] = asObject(message, v);
  }
  return out;
}

function bigintsAsText(value) {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(bigintsAsText);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bigintsAsText(v)]));
  }
  return value;
}
