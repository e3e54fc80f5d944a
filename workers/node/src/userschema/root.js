// A user's schema as protobufjs reads it, in its JSON form, from the descriptor set rpcarena compiled.
// protobufjs's Root.fromDescriptor (ext/descriptor, which @grpc/proto-loader's
// loadFileDescriptorSetFromBuffer calls) loses two shapes its .proto parser keeps, so that a Node
// user who loads the .proto itself (proto-loader's loadSync) has them and one given its descriptor
// set has not: a map field comes out as a repeated field of its entry message (a sample's map is then
// "array expected", and the `map_entry` option is set on the map's parent, not on the entry), and a
// proto2 group as a length-prefixed message field (its start and end tags undecodable). Both are put
// back here, as the parser has them, and the server's and the driver's types are built from this JSON.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const protobuf = require("protobufjs");
const descriptor = require("protobufjs/ext/descriptor");

const TYPE_GROUP = 10;

// The set's bytes -> protobufjs's JSON of its root (Root.fromJSON and proto-loader's fromJSON read it).
export function schemaJSON(setBytes) {
  const set = descriptor.FileDescriptorSet.decode(setBytes);
  const json = protobuf.Root.fromDescriptor(set).toJSON();
  const { entries, groups } = lostShapes(set, json);
  for (const field of groups) {
    const options = (field.options ??= {});
    options.features = { ...options.features, message_encoding: "DELIMITED" };
  }
  for (const message of messages(json)) restoreMaps(json, message, entries);
  return json;
}

// The full names of the set's map entries, and the JSON of each group field, an extension's too
// (in `json`, the root's).
function lostShapes(set, json) {
  const entries = new Set(), groups = [];
  const walk = (message, prefix, parent) => {
    const name = `${prefix}.${message.name}`, here = parent.nested[message.name];
    for (const nested of message.nestedType) {
      if (nested.options?.mapEntry) entries.add(`${name}.${nested.name}`);
      walk(nested, name, here);
    }
    for (const field of message.field) if (field.type === TYPE_GROUP) groups.push(here.fields[field.name]);
    extensionGroups(message.extension, here);
  };
  // an extension is declared where its `extend` is: in a package, or in a message's nested
  const extensionGroups = (fields, node) => {
    for (const field of fields) if (field.type === TYPE_GROUP) groups.push(node.nested[field.name]);
  };
  for (const file of set.file) {
    const prefix = file.package ? `.${file.package}` : "", node = prefix ? lookup(json, prefix) : json;
    for (const message of file.messageType) walk(message, prefix, node);
    extensionGroups(file.extension, node);
  }
  return { entries, groups };
}

// Every message's JSON in the root's JSON (packages and nested messages alike).
function* messages(node) {
  for (const child of Object.values(node.nested ?? {})) {
    if (child.fields) yield child;
    yield* messages(child);
  }
}

// A message's map fields as the parser has them (keyType, the value's type; no entry message).
function restoreMaps(root, message, entries) {
  for (const [name, field] of Object.entries(message.fields)) {
    if (!entries.has(field.type)) continue;
    const entry = lookup(root, field.type);
    message.fields[name] = { keyType: entry.fields.key.type, type: entry.fields.value.type, id: field.id,
      ...(field.options && { options: field.options }) };
    delete message.nested[field.type.slice(field.type.lastIndexOf(".") + 1)];
  }
  if (message.nested && Object.keys(message.nested).length === 0) delete message.nested;
  if (message.options?.map_entry) delete message.options.map_entry; // fromDescriptor's, on the parent
  if (message.options && Object.keys(message.options).length === 0) delete message.options;
}

// The JSON of ".pkg.Outer.Inner".
function lookup(root, fullName) {
  return fullName.slice(1).split(".").reduce((node, part) => node.nested[part], root);
}
