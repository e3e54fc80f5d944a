// A user's schema on grpc-node (rpcarena run --proto): loaded at run time from its descriptor set,
// served from served.json as each reply mode answers, called by the driver with the spec's
// schema_b64, every reply checked; and the handler's CPU work as asked.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { calibrate } from "../src/userschema/work.js";
import { openServed } from "../src/userschema/served.js";
import { stringifyJSON } from "../src/json.js";
import { REPO, driveSpec, startServer } from "./helpers.js";

const EXAMPLES = new URL("examples/", REPO).pathname;

function compiled(folder, file) {
  const out = join(mkdtempSync(join(tmpdir(), "node-user-")), "set.pb");
  execFileSync("protoc", ["-I", join(EXAMPLES, folder), "--include_imports", `--descriptor_set_out=${out}`, file]);
  return readFileSync(out);
}

// A grpc-node server of the method, as `serve --schema served.json` starts one.
async function served(set, method, reply, pairs, work = {}) {
  const path = join(mkdtempSync(join(tmpdir(), "node-served-")), "served.json");
  writeFileSync(path, stringifyJSON({ method, reply, pairs, descriptor_set_b64: set.toString("base64"),
    server_work_us: 0, server_wait_us: 0, ...work }));
  return startServer("grpc-node", { user: openServed(path) });
}

const ORDERS = [
  { order_id: "A-1001", customer: "ada", items: [{ sku: "BOOK-7", quantity: 1, unit_price: 12.5 }], express: true },
  { order_id: "A-1002", customer: "grace", note: "leave at the door" },
];

test("echo: the request's fields read as the reply type, by number", async () => {
  const set = compiled("orders", "orders.proto");
  const server = await served(set, "orders.Orders/Place", "echo", []);
  try {
    const spec = { contender: "grpc-node", target: server.target, method: "orders.Orders/Place", schema_b64: set.toString("base64"),
      requests: ORDERS, responses: [{ order_id: "A-1001", customer: "ada" }, { order_id: "A-1002", customer: "grace" }], calls: 20 };
    assert.equal((await driveSpec(spec)).calls, 20);
    const wrong = await driveSpec({ ...spec, responses: [{ order_id: "A-1001" }, { order_id: "A-1002", customer: "grace", status: "x" }] });
    assert.equal(wrong.errors.wrong_answer, 20);
    assert.match(wrong.error_examples.wrong_answer, /\$\.customer|\$\.status/);
  } finally {
    await server.stop();
  }
});

test("file: each request answered with its paired reply; size: one reply", async () => {
  const set = compiled("orders", "orders.proto");
  const pairs = [[ORDERS[0], { order_id: "A-1001", status: "placed", eta_minutes: 1234567890123456789n }],
    [ORDERS[1], { order_id: "A-1002", status: "queued", eta_minutes: 5 }]];
  for (const [mode, replies] of [["file", pairs], ["size", [pairs[0], pairs[0]]]]) {
    const server = await served(set, "orders.Orders/Place", mode, mode === "file" ? pairs : [pairs[0]]);
    try {
      const result = await driveSpec({ contender: "grpc-node", target: server.target, method: "orders.Orders/Place",
        schema_b64: set.toString("base64"), requests: ORDERS, responses: replies.map(([, r]) => r), calls: 10 });
      assert.equal(result.calls, 10, `${mode}: ${JSON.stringify(result.error_examples)}`);
    } finally {
      await server.stop();
    }
  }
});

test("a bidirectional stream of the user's: each message answered in order on one stream", async () => {
  const set = compiled("streaming", "ticks.proto");
  const server = await served(set, "ticks.Ticker/Follow", "echo", []);
  try {
    const ticks = readFileSync(join(EXAMPLES, "streaming/requests.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const result = await driveSpec({ contender: "grpc-node", target: server.target, method: "ticks.Ticker/Follow", mode: "stream",
      schema_b64: set.toString("base64"), requests: ticks, responses: ticks, calls: 30, clients: 2 });
    assert.equal(result.calls, 30, JSON.stringify(result.error_examples));
  } finally {
    await server.stop();
  }
});

test("the handler's work spins until the CPU clock has advanced by what was asked", () => {
  const { asked_us: asked, thread_cpu_ns: ns, calls } = calibrate(500, 20);
  assert.equal(asked, 500);
  assert.ok(ns >= 500 * 1000 * calls, `${ns / calls / 1000} us a call`); // how close it comes is benchmarks/server_work.py's
});
