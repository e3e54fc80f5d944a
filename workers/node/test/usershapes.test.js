// The shapes of a user's schema protobufjs's Root.fromDescriptor loses or a careless handler changes,
// through a grpc-node server and the Node driver (the conformance corpus runs every case; these are
// the ones the worker itself must get right): a map, a group, presence kept on an echo, the
// well-known types' JSON forms, and a reply file's request found whatever the order of its map's
// entries.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DRIVER_OPTIONS, fromCanonical, userMethod } from "../src/userschema/method.js";
import { openServed } from "../src/userschema/served.js";
import { stringifyJSON } from "../src/json.js";
import { REPO, driveSpec, startServer } from "./helpers.js";

const CORPUS = new URL("tests/fixtures/conformance/", REPO).pathname;
const FIXTURES = new URL("tests/fixtures/userschema/", REPO).pathname;

function compiled(file, folder = CORPUS) {
  const out = join(mkdtempSync(join(tmpdir(), "node-shapes-")), "set.pb");
  execFileSync("protoc", ["-I", folder, "--include_imports", `--descriptor_set_out=${out}`, file], { stdio: ["ignore", "ignore", "ignore"] });
  return readFileSync(out);
}

async function served(set, method, reply, pairs) {
  const path = join(mkdtempSync(join(tmpdir(), "node-served-")), "served.json");
  writeFileSync(path, stringifyJSON({ method, reply, pairs, descriptor_set_b64: set.toString("base64"), server_work_us: 0, server_wait_us: 0 }));
  return startServer("grpc-node", { user: openServed(path) });
}

// The driver's result of `requests` echoed (or answered from `pairs`), each reply expected as given.
async function drive(set, method, requests, responses, reply = "echo", pairs = []) {
  const server = await served(set, method, reply, pairs);
  try {
    return await driveSpec({ contender: "grpc-node", target: server.target, method, schema_b64: set.toString("base64"),
      requests, responses, calls: requests.length });
  } finally {
    await server.stop();
  }
}

test("an echo keeps every field's presence: an unset proto2 or optional field stays unset, a set default stays set", async () => {
  const proto2 = [{ id: "x", version: 1 }, { id: "", version: 0, retries: 3, plain: 0 }];
  let result = await drive(compiled("proto2.proto"), "conformance.proto2_required.Records/Echo", proto2, proto2);
  assert.equal(result.errors.wrong_answer, 0, JSON.stringify(result.error_examples));
  const optional = [{ plain: 2 }, { retries: 0 }, {}];
  result = await drive(compiled("core.proto"), "conformance.optional.Optional/Echo", optional, optional);
  assert.equal(result.errors.wrong_answer, 0, JSON.stringify(result.error_examples));
  const wrong = await drive(compiled("core.proto"), "conformance.optional.Optional/Echo", [{ plain: 2 }], [{ plain: 2, retries: 0 }]);
  assert.equal(wrong.errors.wrong_answer, 1); // presence is what the driver judges, too
});

test("a map and a group come through as the schema declares them", async () => {
  const catalogs = [{ products: { apple: { name: "Apple", cents: 120 }, empty: {} }, labels: { "-2": "minus two", 0: "" } }];
  let result = await drive(compiled("core.proto"), "conformance.maps.Maps/Echo", catalogs, catalogs);
  assert.equal(result.errors.wrong_answer + result.errors.other, 0, JSON.stringify(result.error_examples));
  const orders = [{ id: "o1", shipping: { address: "Hauptstraße 1", zone: 3 }, line: [{ sku: "a", qty: 2 }, {}] }];
  result = await drive(compiled("proto2.proto"), "conformance.proto2_group.Orders/Echo", orders, orders);
  assert.equal(result.errors.wrong_answer + result.errors.other, 0, JSON.stringify(result.error_examples));
  const tagged = [{ id: "t", "[tagged.Holder.inner]": [{ b: "x" }, {}] }]; // a group that is an extension
  result = await drive(compiled("extension_group/tagged.proto", FIXTURES), "tagged.Tags/Echo", tagged, tagged);
  assert.equal(result.errors.wrong_answer + result.errors.other, 0, JSON.stringify(result.error_examples));
});

// What protoc writes for a message given in its text format: another implementation's wire.
function protocEncodes(file, folder, type, text) {
  return execFileSync("protoc", ["-I", folder, `--encode=${type}`, file], { input: text, stdio: ["pipe", "pipe", "ignore"] }).toString("hex");
}

test("a group, an extension's too, is written between start and end tags, as protoc writes it", () => {
  const cases = [
    ["proto2.proto", CORPUS, "conformance.proto2_group.Orders/Echo", { id: "o1", shipping: { address: "A", zone: 3 }, line: [{ sku: "a" }] },
      'id: "o1" Shipping { address: "A" zone: 3 } Line { sku: "a" }'],
    ["extension_group/tagged.proto", FIXTURES, "tagged.Tags/Echo", { id: "t", "[tagged.Holder.inner]": [{ b: "x" }, {}] },
      'id: "t" [tagged.Holder.inner] { b: "x" } [tagged.Holder.inner] { }'],
  ];
  for (const [file, folder, method, sample, text] of cases) {
    const { Req } = userMethod(compiled(file, folder), method, DRIVER_OPTIONS);
    const ours = Buffer.from(Req.encode(fromCanonical(Req, sample)).finish()).toString("hex");
    assert.equal(ours, protocEncodes(file, folder, Req.fullName.slice(1), text), method);
  }
});

test("the well-known types' JSON forms are read as their messages, as protoc writes them", () => {
  const cases = [
    ["conformance.timestamps.Timestamps/Echo", { at: "0001-01-01T00:00:00Z", took: "-1.5s", history: ["1970-01-01T00:00:00.000000001Z"] },
      "at { seconds: -62135596800 } took { seconds: -1 nanos: -500000000 } history { nanos: 1 }"],
    ["conformance.empty_mask.EmptyMask/Echo", { nothing: {}, mask: "displayName,address.zipCode" },
      'nothing { } mask { paths: "display_name" paths: "address.zip_code" }'],
    ["conformance.any.Anys/Echo", { payload: { "@type": "type.googleapis.com/google.protobuf.Duration", value: "2s" },
      extras: [{ "@type": "type.googleapis.com/conformance.any.Note", text: "t" }] },
    "payload { [type.googleapis.com/google.protobuf.Duration] { seconds: 2 } } extras { [type.googleapis.com/conformance.any.Note] { text: \"t\" } }"],
    ["conformance.structs.Structs/Echo", { body: { n: 0, none: null }, any_value: false, items: [""] },
      'body { fields { key: "n" value { number_value: 0 } } fields { key: "none" value { null_value: NULL_VALUE } } } '
      + 'any_value { bool_value: false } items { values { string_value: "" } }'],
  ];
  const set = compiled("wkt.proto");
  for (const [method, sample, text] of cases) {
    const { Req } = userMethod(set, method, DRIVER_OPTIONS);
    const ours = Buffer.from(Req.encode(fromCanonical(Req, sample)).finish()).toString("hex");
    assert.equal(ours, protocEncodes("wkt.proto", CORPUS, Req.fullName.slice(1), text), method);
  }
});

test("a reply file's request is found whatever the order of its map's entries", async () => {
  const sample = { products: { a: { name: "A" }, b: { name: "B" } }, prices: { x: 1.5, y: -0 } };
  const reordered = { prices: { y: -0, x: 1.5 }, products: { b: { name: "B" }, a: { name: "A" } } };
  const answer = { labels: { 1: "found" } };
  const result = await drive(compiled("core.proto"), "conformance.maps.Maps/Echo", [reordered], [answer], "file", [[sample, answer]]);
  assert.equal(result.calls, 1);
  const kinds = Object.entries(result.errors).filter(([, n]) => n > 0);
  assert.deepEqual(kinds, [], JSON.stringify(result.error_examples));
});
