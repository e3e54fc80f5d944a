// rest-fastify: Fastify's server of POST /arena/{Method} (the contract's HTTP/JSON mapping), a
// route per unary rpc with its reply's JSON schema (Fastify serializes through
// fast-json-stringify), and undici's client, one keep-alive connection per client (a Client).
import { createRequire } from "node:module";
import Fastify from "fastify";
import { Client } from "undici";
import { equivalent } from "../equal.js";
import { parseJSON, stringifyJSON } from "../json.js";
import { MAX_REQUEST_BYTES, idleTimeoutMs, listenBacklog } from "../limits.js";
import { answerer, Refused } from "../semantics.js";
import { arenaSchema, holdsInt64, methodsOf, method as methodNamed, SERVICE } from "../schema.js";
import { requestPairs, UsageError } from "../spec.js";
import { CallError, kindOf } from "./errors.js";
import { BadRequest, readerOf, schemaOf } from "./jsonshape.js";

const require = createRequire(import.meta.url);
export const tool = {
  name: "rest-fastify",
  version: `fastify ${require("fastify/package.json").version}, undici ${require("undici/package.json").version}`,
  runtime: `node ${process.version}`,
};

// A Fastify a peer cannot hold (docs/worker-contract.md): a body over MAX_REQUEST_BYTES is 413
// (at once for a Content-Length over it); a request must arrive whole, and its reply be taken,
// within the idle timeout (requestTimeout, and the socket's inactivity timeout); a keep-alive
// connection idle that long is closed. Node checks requestTimeout every connectionsCheckingInterval
// (30 s by default): a twelfth of the timeout closes a request at most 5 s after its 60 (a quarter let
// it run 15 s over, past the trickle drill's 10 s of slack).
export function boundedFastify() {
  const idle = idleTimeoutMs();
  const app = Fastify({
    bodyLimit: MAX_REQUEST_BYTES, connectionTimeout: idle, keepAliveTimeout: idle, requestTimeout: idle,
    http: { headersTimeout: idle, connectionsCheckingInterval: Math.max(Math.floor(idle / 12), 250) },
    logger: false, return503OnClosing: false,
  });
  // JSON read as the route's message needs: with every int64 where it holds one (see json.js)
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    try {
      done(null, request.routeOptions.config?.int64 ? parseJSON(body) : JSON.parse(body));
    } catch (error) {
      done(new BadRequest(`the body is not JSON: ${error.message}`));
    }
  });
  app.setErrorHandler((error, request, reply) => {
    const code = error instanceof BadRequest || error instanceof Refused ? 400 : error.statusCode ?? 500;
    reply.code(code).type("text/plain; charset=utf-8").send(error.message);
  });
  return app;
}

// The route of one method: its reply's schema, the reader of its request, and its handler.
export function route(messages, m, handle) {
  const read = readerOf(messages, m.request);
  return {
    schema: { response: { 200: schemaOf(messages, m.response) } },
    config: { int64: holdsInt64(messages, m.request) },
    handler: async (request) => handle(read(request.body ?? {})),
  };
}

// A user's method is grpc-node's (worker.json's user_lacks): rest-fastify serves arena.proto only.
export const servesUser = false;

export function newServer() {
  const app = boundedFastify();
  const { messages } = arenaSchema();
  for (const m of methodsOf(SERVICE)) {
    if (m.clientStreaming || m.serverStreaming) continue; // no HTTP/JSON mapping for a stream
    app.post(`/arena/${m.name}`, route(messages, m, answerer(m.name)));
  }
  return {
    listen: async (host, port) => {
      await app.listen({ host, port, backlog: listenBacklog() });
      return app.server.address().port;
    },
    stop: () => app.close(),
  };
}

// --- the client

// One undici Client: one connection, kept alive, one request at a time on it.
export function dialHttp(target, timeoutMs) {
  return new Client(`http://${target}`, {
    pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 4 * 60_000,
    keepAliveMaxTimeout: 4 * 60_000,
  });
}

// POST path with body; the reply's text on 200, else a status_<code> failure.
export async function post(client, path, body) {
  const { statusCode, body: reply } = await client.request({
    path, method: "POST", headers: { "content-type": "application/json" }, body,
  });
  const text = await reply.text();
  if (statusCode !== 200) throw new CallError(`status_${statusCode}`, `HTTP ${statusCode}: ${text.slice(0, 120)}`);
  return text;
}

export function newClient(spec) {
  const m = methodNamed(spec.method);
  if (!m || m.service !== SERVICE) throw new UsageError(`rest-fastify: no method ${spec.method} in ${SERVICE}`);
  if (m.clientStreaming || m.serverStreaming) throw new UsageError(`rest-fastify: ${m.name} is a stream, which HTTP/JSON does not map`);
  const { messages } = arenaSchema();
  const path = `/arena/${m.name}`;
  const pairs = requestPairs(spec);
  const write = holdsInt64(messages, m.request) ? stringifyJSON : JSON.stringify;
  const read = holdsInt64(messages, m.response) ? parseJSON : JSON.parse;
  return {
    len: pairs.length, multiplexes: false, classify: kindOf,
    async dial(timeoutMs) {
      const client = dialHttp(spec.target, timeoutMs);
      return {
        call: async (idx) => read(await post(client, path, write(pairs[idx][0]))),
        close: () => client.destroy().catch(() => {}),
      };
    },
    matches: (idx, reply) => equivalent(reply, pairs[idx][1]),
    explain: (idx, reply) => `reply to request ${idx}: got ${stringifyJSON(reply)}, want ${stringifyJSON(pairs[idx][1])}`,
  };
}
