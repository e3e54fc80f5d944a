// worker.json, read by the orchestrator, names the contenders this worker has, both ways.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CONTENDERS } from "../src/contenders/index.js";
import { runWorker } from "./helpers.js";

const manifest = JSON.parse(readFileSync(new URL("../worker.json", import.meta.url), "utf8"));

test("the manifest's contenders are the worker's, in order, with their protocols", () => {
  assert.deepEqual(manifest.contenders.map((c) => [c.id, c.protocol]), CONTENDERS.map((c) => [c.id, c.protocol]));
});

test("list prints every contender with its tool", async () => {
  const { code, stdout } = await runWorker(["list"]);
  assert.equal(code, 0);
  const listed = JSON.parse(stdout);
  assert.deepEqual(listed.map((c) => c.id), manifest.contenders.map((c) => c.id));
  for (const c of listed) assert.match(c.tool.runtime, /^node v\d+/);
});

test("every dependency is pinned to one version", () => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(version, /^\d+\.\d+\.\d+$/, name);
  }
});
