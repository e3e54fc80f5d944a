// The worker against the golden documents of proto/contract/ (tools/gen_contract.py writes them
// from the orchestrator's own typed contract): every golden spec parses to its values, every key
// of the contract's drive spec is read, and what the worker prints is what the orchestrator parses.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseJSON } from "../src/json.js";
import { PYTHON_ONLY, specOf } from "../src/spec.js";
import { driveSpec, fields, goldenSpecs, problems, runWorker, spawnServer, startServer } from "./helpers.js";

test("every golden spec parses to the file's values", () => {
  const specs = goldenSpecs();
  assert.ok(specs.length >= 5, "no golden specs: run tools/gen_contract.py");
  for (const { name, text } of specs) {
    const file = parseJSON(text);
    const spec = specOf(text);
    for (const [key, value] of Object.entries(file)) {
      if (!PYTHON_ONLY.has(key)) assert.deepEqual(spec[key], value, `${name}: ${key}`);
    }
  }
});

test("the spec reads every key of the contract's drive spec, and no other", () => {
  const table = fields().drive_spec;
  const read = Object.keys(specOf(goldenSpecs()[0].text));
  assert.deepEqual(new Set(read), new Set(Object.keys(table)));
});

test("a spec the worker cannot run is exit 2 and one line on stderr", async () => {
  for (const input of ["not json", JSON.stringify({ contender: "grpc-node", target: "x", method: "Void", calls: 1, clients: 0, requests: [{}], responses: [{}] }),
    JSON.stringify({ contender: "nope", target: "x", method: "Void", calls: 1, requests: [{}], responses: [{}] }),
    JSON.stringify({ contender: "grpc-node", target: "x", method: "Nope", calls: 1, requests: [{}], responses: [{}] })]) {
    const { code, stderr } = await runWorker(["drive"], input);
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
  }
  assert.equal((await runWorker(["serve", "--contender", "nope"])).code, 2);
  assert.equal((await runWorker(["bogus"])).code, 2);
});

test("ready lines and results follow the contract", async () => {
  for (const id of ["grpc-node", "rest-fastify"]) {
    const server = await spawnServer(id);
    try {
      assert.deepEqual(problems("ready", server.ready), []);
      assert.equal(server.ready.contract, 1);
      for (const { name, text } of goldenSpecs().filter((s) => !s.name.includes("tcp-raw") && !s.name.includes("stream"))) {
        const spec = { ...parseJSON(text), contender: id, target: server.target, sync: true, warmup_s: 0.1 };
        if (spec.calls !== null) spec.calls = 200;
        if (spec.duration_s !== null) spec.duration_s = 0.6;
        if (spec.stages) spec.stages = spec.stages.map((s) => ({ ...s, duration_s: 0.3 }));
        delete spec.warmup_max_s;
        const { code, stdout, stderr } = await runWorker(["drive"], JSON.stringify(spec) + "\n\ngo\n");
        assert.equal(code, 0, `${id} ${name}: ${stderr}`);
        const lines = stdout.trim().split("\n");
        assert.deepEqual(JSON.parse(lines[0]), { event: "warm" }, name);
        const result = JSON.parse(lines.at(-1));
        assert.deepEqual(problems("drive_result", result), [], `${id} ${name}`);
        assert.ok(result.calls > 0 && result.errors.wrong_answer === 0, `${id} ${name}: ${lines.at(-1).slice(0, 300)}`);
      }
    } finally {
      await server.stop();
    }
  }
});

test("a drive against no server counts connection errors and still answers", async () => {
  const server = await startServer("rest-fastify");
  const target = server.target;
  await server.stop();
  for (const contender of ["grpc-node", "rest-fastify"]) {
    const result = await driveSpec({ contender, target, method: "Void", requests: [{}], responses: [{}], calls: 3, timeout_ms: 500 });
    assert.equal(result.calls, 0);
    assert.equal(result.errors.connection, 3, JSON.stringify(result.errors));
    assert.deepEqual(problems("drive_result", { ...result, tool: {} }), []);
  }
});
