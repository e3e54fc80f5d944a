// The shapes of proto/arena.proto's (and predictions.proto's) messages and services, read from the
// descriptor set the build wrote with protoc (gen/arena.pb), and the message classes pbjs generated
// ahead (gen/arena.cjs). Reading the set builds no protobufjs type, so a start costs no time in
// the fields of LargeData8192 (see build.sh).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const descriptor = require("protobufjs/ext/descriptor");

export const GEN = new URL("../gen/", import.meta.url);

// A field: its name, number, type ("int32", "string", "message", ...), whether repeated, and for
// a message field its message's full name.
function fieldOf(f) {
  return {
    name: f.name, number: f.number, type: f.type.replace(/^TYPE_/, "").toLowerCase(),
    repeated: f.label === "LABEL_REPEATED", message: f.typeName ? f.typeName.replace(/^\./, "") : null,
  };
}

// Every message and method of a FileDescriptorSet (its bytes): messages by full name, each a list
// of fields; methods by "package.Service/Method", and the arena's also by their bare name.
export function shapes(setBytes) {
  const set = descriptor.FileDescriptorSet.toObject(descriptor.FileDescriptorSet.decode(setBytes),
    { enums: String, longs: String });
  const messages = new Map(), methods = new Map();
  for (const file of set.file) {
    const prefix = file.package ? `${file.package}.` : "";
    const addMessages = (list, scope) => {
      for (const m of list ?? []) {
        const full = scope + m.name;
        messages.set(full, { name: full, fields: (m.field ?? []).map(fieldOf), mapEntry: !!m.options?.mapEntry });
        addMessages(m.nestedType, `${full}.`);
      }
    };
    addMessages(file.messageType, prefix);
    for (const service of file.service ?? []) {
      for (const m of service.method ?? []) {
        const method = {
          service: prefix + service.name, name: m.name,
          request: m.inputType.replace(/^\./, ""), response: m.outputType.replace(/^\./, ""),
          clientStreaming: !!m.clientStreaming, serverStreaming: !!m.serverStreaming,
        };
        method.key = `${method.service}/${method.name}`;
        methods.set(method.key, method);
      }
    }
  }
  return { messages, methods };
}

let arena;

// The arena's shapes and its generated message classes, read once.
export function arenaSchema() {
  if (!arena) {
    const { messages, methods } = shapes(readFileSync(new URL("arena.pb", GEN)));
    const classes = require(new URL("arena.cjs", GEN).pathname);
    arena = { messages, methods, classOf: (full) => full.split(".").reduce((ns, part) => ns?.[part], classes) };
  }
  return arena;
}

export const SERVICE = "arena.Arena";

// A method of the arena by its bare name ("Invert"), or of any service by its key.
export function method(name) {
  const { methods } = arenaSchema();
  return methods.get(name) ?? methods.get(`${SERVICE}/${name}`);
}

// The unary and stream methods of a service, in the proto's order.
export function methodsOf(service) {
  return [...arenaSchema().methods.values()].filter((m) => m.service === service);
}

// Whether a message holds an int64 anywhere (in itself or a message it contains): the JSON of such
// a message is read with parseJSON, others with JSON.parse.
export function holdsInt64(messages, name, seen = new Set()) {
  if (seen.has(name)) return false;
  seen.add(name);
  return messages.get(name).fields.some((f) => ["int64", "sint64", "sfixed64", "uint64", "fixed64"].includes(f.type)
    || (f.type === "message" && holdsInt64(messages, f.message, seen)));
}
