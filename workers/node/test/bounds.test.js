// The bounds of docs/worker-contract.md held by each server, as a hostile peer meets them: a request
// over MAX_REQUEST_BYTES gets the protocol's own refusal, a count over the cap is the caller's
// error naming it, and a connection that sends nothing is closed (the idle timeout lowered to a
// second through RPCARENA_IDLE_TIMEOUT_S, in servers started as the orchestrator starts them).
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { IDLE_ENV, MAX_REQUEST_BYTES, idleTimeoutMs } from "../src/limits.js";
import { driveSpec, spawnServer, startServer } from "./helpers.js";

const OVER = MAX_REQUEST_BYTES + 1;

test("the idle timeout is the contract's 60 s unless lowered", () => {
  const cases = { "": 60000, "0.5": 500, 2: 2000, 0: 60000, "-1": 60000, NaN: 60000, x: 60000, 600: 60000 };
  for (const [value, want] of Object.entries(cases)) assert.equal(idleTimeoutMs({ [IDLE_ENV]: value }), want, value);
});

// What a raw connection gets: the bytes the server answered before it closed the connection, and
// whether it did close it (within 30 s).
function exchange(port, bytes) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let got = "";
    socket.on("data", (d) => { got += d.toString("latin1"); });
    socket.on("error", () => {});
    socket.on("close", () => resolve({ reply: got, closed: true }));
    socket.setTimeout(30_000, () => { resolve({ reply: got, closed: false }); socket.destroy(); });
    if (bytes) socket.write(bytes, () => {});
  });
}

test("tcp-raw-node closes a frame over the bound, and a connection idle for the timeout", async () => {
  const server = await spawnServer("tcp-raw-node", { [IDLE_ENV]: "1" });
  try {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(OVER);
    assert.deepEqual(await exchange(server.ready.port, Buffer.concat([head, Buffer.alloc(1 << 16)])), { reply: "", closed: true });
    assert.ok((await exchange(server.ready.port, null)).closed);
  } finally {
    await server.stop();
  }
});

test("rest-fastify answers 413 to a body over the bound and closes an idle connection", async () => {
  const server = await spawnServer("rest-fastify", { [IDLE_ENV]: "1" });
  try {
    const head = `POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${10 * 2 ** 30}\r\n\r\n`;
    assert.match((await exchange(server.ready.port, head + "x".repeat(1 << 16))).reply, /^HTTP\/1.1 413 /);
    assert.ok((await exchange(server.ready.port, null)).closed);
    assert.ok((await exchange(server.ready.port, "POST /arena/SayHello HTTP/1.1\r\nHost: x\r\nContent-Type: appl")).closed);
  } finally {
    await server.stop();
  }
});

test("grpc-node refuses a message over the bound and closes an idle connection", async () => {
  const server = await spawnServer("grpc-node", { [IDLE_ENV]: "1" });
  try {
    const result = await driveSpec({ contender: "grpc-node", target: server.target, method: "SayHello",
      requests: [{ name: "x".repeat(OVER) }], responses: [{ message: "" }], calls: 1 });
    assert.deepEqual(result.errors.status_resource_exhausted, 1, JSON.stringify(result.errors));
    assert.ok((await exchange(server.ready.port, null)).closed);
  } finally {
    await server.stop();
  }
});

test("a count over the cap is the caller's error, naming the cap, and the connection lives on", async () => {
  for (const [contender, kind] of [["grpc-node", "status_invalid_argument"], ["rest-fastify", "status_400"]]) {
    const server = await startServer(contender);
    try {
      const result = await driveSpec({ contender, target: server.target, method: "GetRandNums", clients: 1,
        requests: [{ count: 1_000_001, seed: 1 }, { count: 2, seed: 42 }],
        responses: [{ values: [] }, { values: [1083814273, 378494188] }], calls: 4 });
      assert.equal(result.errors[kind], 2, JSON.stringify(result.errors));
      assert.equal(result.calls, 2);
      assert.match(result.error_examples[kind], /over the cap of 1000000: ask for fewer/);
    } finally {
      await server.stop();
    }
  }
});
