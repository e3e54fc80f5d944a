// A method of a user's schema (`rpcarena run --proto`), loaded at run time from its compiled
// descriptor set, as a Node user loads a .proto: @grpc/proto-loader's definition (the path, the
// stream flags, serializers over protobufjs's fromObject/encode and decode/toObject), beside
// protobufjs's types of the same set for what the worker computes outside a call (the pairs of a
// reply file, the expected replies).
import { createRequire } from "node:module";
import protoLoader from "@grpc/proto-loader";
import { UsageError } from "../spec.js";

const require = createRequire(import.meta.url);
const protobuf = require("protobufjs");
const descriptor = require("protobufjs/ext/descriptor");

// grpc-node's own examples load with these (route_guide): proto names, 64-bit integers as text,
// enums by name, every default present, the oneof's case named.
export const SERVER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
// The driver reads replies as the workloads keep them (proto names, enums as numbers, bytes in
// base64), with presence kept: a field absent stays absent, so absent is never read as empty.
export const DRIVER_OPTIONS = { keepCase: true, longs: String, enums: Number, bytes: String, defaults: false, oneofs: false };

// The method `key` ("pkg.Service/Method") of the set's bytes, loaded with `options`.
export function userMethod(setBytes, key, options) {
  const slash = key.lastIndexOf("/");
  const service = key.slice(0, slash), name = key.slice(slash + 1);
  let definition, root;
  try {
    definition = protoLoader.loadFileDescriptorSetFromBuffer(setBytes, options);
    root = protobuf.Root.fromDescriptor(descriptor.FileDescriptorSet.decode(setBytes));
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
// base64, enums as numbers) as protobufjs's fromObject reads it.
export function fromCanonical(Type, value) {
  return Type.fromObject(bigintsAsText(value));
}

function bigintsAsText(value) {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(bigintsAsText);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bigintsAsText(v)]));
  }
  return value;
}
