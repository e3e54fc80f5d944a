// proto/vectors/arena.json, the answers every language gives: the semantics alone, then every
// vector through each server, called by its own client (every reply verified).
import assert from "node:assert/strict";
import { test } from "node:test";
import { equivalent } from "../src/equal.js";
import { stringifyJSON } from "../src/json.js";
import { answerer, randNums, MAX_COUNT } from "../src/semantics.js";
import { methodsOf, SERVICE } from "../src/schema.js";
import { parseJSON } from "../src/json.js";
import { byMethod, driveSpec, goldenSpecs, startServer, vectors } from "./helpers.js";

test("the semantics answer every vector", () => {
  for (const v of vectors()) {
    assert.ok(equivalent(answerer(v.method)(structuredClone(v.request)), v.response), `${v.method} ${stringifyJSON(v.request).slice(0, 80)}`);
  }
});

test("every rpc of the proto has vectors or is an echo, and a count over the cap is refused", () => {
  const methods = byMethod();
  for (const m of methodsOf(SERVICE)) {
    assert.ok(methods.has(m.name) || m.name.startsWith("Echo") || m.clientStreaming || m.name === "GetPredictions", m.name);
  }
  assert.equal(randNums(MAX_COUNT, 1).length, MAX_COUNT);
  assert.throws(() => randNums(MAX_COUNT + 1, 1), /GetRandNums count 1000001 is over the cap of 1000000: ask for fewer/);
});

for (const id of ["grpc-node", "rest-fastify"]) {
  test(`${id}: every vector through its server and its client`, async () => {
    const server = await startServer(id);
    try {
      for (const [method, { requests, responses }] of byMethod()) {
        const result = await driveSpec({ contender: id, target: server.target, method, requests, responses,
          calls: requests.length * 2, clients: 2 });
        assert.equal(result.calls, requests.length * 2, `${method}: ${JSON.stringify(result.error_examples)}`);
      }
    } finally {
      await server.stop();
    }
  });
}

test("grpc-node: InvertStream answers each word on one stream per client", async () => {
  const server = await startServer("grpc-node");
  try {
    const { requests, responses } = byMethod().get("Invert");
    const result = await driveSpec({ contender: "grpc-node", target: server.target, method: "InvertStream", mode: "stream",
      requests, responses, calls: 60, clients: 3 });
    assert.equal(result.calls, 60, JSON.stringify(result.error_examples));
  } finally {
    await server.stop();
  }
});

test("a wrong reply is a wrong_answer, with an example", async () => {
  for (const contender of ["grpc-node", "rest-fastify"]) {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, method: "SayHello", requests: [{ name: "a" }],
        responses: [{ message: "Hello b" }], calls: 4 });
      assert.equal(result.calls, 0);
      assert.equal(result.errors.wrong_answer, 4);
      assert.match(result.error_examples.wrong_answer, /Hello a/);
    } finally {
      await server.stop();
    }
  }
});

test("tcp-raw-node echoes every payload of the golden tcp-raw spec", async () => {
  const server = await startServer("tcp-raw-node");
  try {
    const spec = parseJSON(goldenSpecs().find((s) => s.name === "spec.tcp-raw.json").text);
    const result = await driveSpec({ ...spec, contender: "tcp-raw-node", target: server.target, calls: 100, sync: false });
    assert.equal(result.calls, 100, JSON.stringify(result.error_examples));
  } finally {
    await server.stop();
  }
});
