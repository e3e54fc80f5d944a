// grpc-node: @grpc/grpc-js's server of every rpc of arena.Arena (bidi InvertStream too), and its
// client, one channel per client (its own subchannel pool, so its own connection). The messages
// are pbjs's static classes (build.sh), bound into a service definition as grpc-tools' generated
// *_grpc_pb.js binds its own: a path, the stream flags, and each side's (de)serializer.
import { createRequire } from "node:module";
import grpc from "@grpc/grpc-js";
import { equivalent } from "../equal.js";
import { MAX_REQUEST_BYTES, idleTimeoutMs, withBacklog } from "../limits.js";
import { answerer, Refused } from "../semantics.js";
import { arenaSchema, methodsOf, method as methodNamed, SERVICE } from "../schema.js";
import { requestPairs, UsageError } from "../spec.js";
import { CallError, kindOf } from "./errors.js";
import { DRIVER_OPTIONS, fromCanonical, plainObject, userMethod } from "../userschema/method.js";
import { firstDifference, withoutImplicitDefaults } from "../userschema/same.js";

const version = createRequire(import.meta.url)("@grpc/grpc-js/package.json").version;
export const tool = { name: "grpc-node", version: `@grpc/grpc-js ${version}`, runtime: `node ${process.version}` };

// A method's grpc-js definition over codec {encode(message) -> bytes, decode(bytes) -> message}
// of its request and its response.
export function definition(m, request, response) {
  return {
    path: `/${m.service}/${m.name}`, requestStream: m.clientStreaming, responseStream: m.serverStreaming,
    requestSerialize: request.encode, requestDeserialize: request.decode,
    responseSerialize: response.encode, responseDeserialize: response.decode, originalName: m.name,
  };
}

// A generated class's codec: a Buffer out (grpc-js writes Buffers), a message in.
export function codecOf(Class) {
  return { encode: (message) => Class.encode(message).finish(), decode: (bytes) => Class.decode(bytes), Class };
}

function arenaCodec(name) {
  return codecOf(arenaSchema().classOf(name));
}

// A handler's failure as a gRPC status: a refused request is the caller's error.
export function statusOf(error) {
  if (error instanceof Refused) return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  return { code: grpc.status.INTERNAL, details: String(error?.message ?? error) };
}

function unaryHandler(answer) {
  return (call, callback) => {
    let reply;
    try {
      reply = answer(call.request);
    } catch (error) {
      return callback(statusOf(error));
    }
    callback(null, reply);
  };
}

function streamHandler(answer) {
  return (call) => {
    call.on("data", (message) => {
      try {
        call.write(answer(message));
      } catch (error) {
        call.destroy(Object.assign(new Error(statusOf(error).details), statusOf(error)));
      }
    });
    call.on("end", () => call.end());
    call.on("error", () => {}); // a peer that went away: nothing to answer
  };
}

// The bounds of docs/worker-contract.md: a message over MAX_REQUEST_BYTES is RESOURCE_EXHAUSTED
// (grpc-js's default, said here), a connection without a call for the idle timeout is closed
// (GOAWAY), and so is one that answers no keep-alive ping within it.
export function boundedServer() {
  const idle = idleTimeoutMs();
  return new grpc.Server({
    "grpc.max_receive_message_length": MAX_REQUEST_BYTES, "grpc.max_connection_idle_ms": idle,
    "grpc.keepalive_time_ms": idle, "grpc.keepalive_timeout_ms": idle,
  });
}

export const servesUser = true;

export function newServer(opts) {
  const server = boundedServer();
  const service = {}, impl = {};
  for (const m of methodsOf(SERVICE)) {
    service[m.name] = definition(m, arenaCodec(m.request), arenaCodec(m.response));
    const answer = answerer(m.name);
    impl[m.name] = m.clientStreaming ? streamHandler(answer) : unaryHandler(answer);
  }
  server.addService(service, impl);
  if (opts.user) registerUser(server, opts.user);
  return serving(server);
}

// A user's method (served.js), bound as proto-loader's definition of it is bound by its users:
// the handler gets the request as an object and answers one (a stream: each message in order).
function registerUser(server, user) {
  if (user.oneWay) throw new UsageError(`grpc-node serves a user's unary and bidirectional methods; ${user.key} is a ${user.oneWay} stream`);
  const answer = (request) => user.answer(request);
  const handler = user.streaming
    ? (call) => {
      let last = Promise.resolve();
      call.on("data", (message) => {
        last = last.then(() => answer(message)).then((reply) => call.write(reply),
          (error) => call.destroy(Object.assign(new Error(statusOf(error).details), statusOf(error))));
      });
      call.on("end", () => last.then(() => call.end()));
      call.on("error", () => {});
    }
    : (call, callback) => answer(call.request).then((reply) => callback(null, reply), (error) => callback(statusOf(error)));
  server.addService({ [user.name]: user.def }, { [user.name]: handler });
}

// listen and stop of the serve command, over a grpc-js server with its services added.
export function serving(server) {
  return {
    // grpc-js has no backlog option: its listen is given the system's (withBacklog)
    listen: (host, port) => withBacklog(() => new Promise((resolve, reject) => {
      const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
    })),
    stop: () => server.forceShutdown(), // a graceful stop would wait for the clients' open streams
  };
}

// --- the client

const CHANNEL_OPTIONS = { "grpc.use_local_subchannel_pool": 1 }; // a channel per client: its own connection

function grpcKind(error) {
  if (typeof error?.code !== "number") return kindOf(error);
  if (error.code === grpc.status.DEADLINE_EXCEEDED) return "timeout";
  if (error.code === grpc.status.UNAVAILABLE) return "connection"; // the transport's: the server could not be reached
  return `status_${String(grpc.status[error.code]).toLowerCase()}`;
}

// A channel READY to call, or a connection error: connecting is never a latency sample.
export function dialChannel(target, timeoutMs) {
  const channel = new grpc.Client(target, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  return new Promise((resolve, reject) => {
    channel.waitForReady(Date.now() + timeoutMs, (error) => {
      if (!error) return resolve(channel);
      channel.close();
      reject(new CallError("connection", `cannot connect to ${target}: ${error.message}`));
    });
  });
}

// A unary call on a channel, with the deadline of the spec.
export function unaryCall(channel, def, message, timeoutMs) {
  return new Promise((resolve, reject) => {
    channel.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, message,
      { deadline: Date.now() + timeoutMs }, (error, reply) => (error ? reject(error) : resolve(reply)));
  });
}

// One bidirectional stream kept open: a call is one message sent and its reply received.
export function pingPong(channel, def) {
  const stream = channel.makeBidiStreamRequest(def.path, def.requestSerialize, def.responseDeserialize);
  const waiting = [];
  let failed = null;
  const fail = (error) => {
    failed ??= error ?? new CallError("connection", "the stream ended");
    while (waiting.length) waiting.shift().reject(failed);
  };
  stream.on("data", (reply) => waiting.shift()?.resolve(reply));
  stream.on("error", fail);
  stream.on("end", () => fail(null));
  return {
    call(message, timeoutMs) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => fail(new CallError("timeout", `no reply within ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ resolve: (r) => { clearTimeout(timer); resolve(r); }, reject: (e) => { clearTimeout(timer); reject(e); } });
        stream.write(message);
      });
    },
    close() {
      stream.cancel();
    },
  };
}

// BigInt (an int64 JSON could not hold in a double) as text, which protobufjs's fromObject reads.
export function longsAsText(value) {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(longsAsText);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, longsAsText(v)]));
  }
  return value;
}

// The client of a user's method: requests made once from the spec's JSON, each reply read with
// presence kept and compared with its expected reply read the same way, through the wire.
function newUserClient(spec) {
  const user = userMethod(Buffer.from(spec.schema_b64, "base64"), spec.method, DRIVER_OPTIONS);
  if (user.oneWay) throw new UsageError(`grpc-node calls a user's unary and bidirectional methods; ${user.key} is a ${user.oneWay} stream`);
  if (user.streaming !== (spec.mode === "stream")) throw new UsageError(`grpc-node: ${user.key} is not called in mode ${spec.mode}`);
  const pairs = requestPairs(spec);
  // plain objects, as a Node user calls: a message of the driver's own types would be read by the
  // serializer's fromObject (another root's class) field by field, prototype defaults and all
  const requests = pairs.map(([request]) => plainObject(user.Req, fromCanonical(user.Req, request)));
  const read = (reply) => withoutImplicitDefaults(user.Res, reply);
  const wire = (Type, message) => Type.toObject(Type.decode(Type.encode(message).finish()), DRIVER_OPTIONS);
  const expected = pairs.map(([, reply]) => read(wire(user.Res, fromCanonical(user.Res, reply))));
  return {
    len: pairs.length, multiplexes: true, classify: grpcKind,
    dial: (timeoutMs) => dialed(spec.target, user.def, user.streaming, requests, timeoutMs),
    matches: (idx, reply) => firstDifference(read(reply), expected[idx]) === null,
    explain: (idx, reply) => `reply to request ${idx}: ${firstDifference(read(reply), expected[idx])}`,
  };
}

// A channel READY, and its calls of `def` with the prepared requests (a bidi stream: one kept open).
async function dialed(target, def, stream, requests, timeoutMs) {
  const channel = await dialChannel(target, timeoutMs);
  if (!stream) return { call: (idx, t) => unaryCall(channel, def, requests[idx], t), close: () => channel.close() };
  const s = pingPong(channel, def);
  return { call: (idx, t) => s.call(requests[idx], t), close: () => { s.close(); channel.close(); } };
}

export function newClient(spec) {
  if (spec.schema_b64) return newUserClient(spec);
  const m = methodNamed(spec.method);
  if (!m || m.service !== SERVICE) throw new UsageError(`grpc-node: no method ${spec.method} in ${SERVICE}`);
  const stream = m.clientStreaming && m.serverStreaming;
  if (stream !== (spec.mode === "stream")) throw new UsageError(`grpc-node: ${m.name} is not called in mode ${spec.mode}`);
  const req = arenaCodec(m.request), res = arenaCodec(m.response);
  const def = definition(m, req, res);
  const pairs = requestPairs(spec);
  const requests = pairs.map(([request]) => req.Class.fromObject(longsAsText(request)));
  const view = (reply) => res.Class.toObject(reply, { longs: String, enums: String });
  return {
    len: pairs.length, multiplexes: true, classify: grpcKind,
    dial: (timeoutMs) => dialed(spec.target, def, stream, requests, timeoutMs),
    matches: (idx, reply) => equivalent(view(reply), pairs[idx][1]),
    explain: (idx, reply) => `reply to request ${idx}: got ${JSON.stringify(longsAsText(view(reply)))}, want ${JSON.stringify(longsAsText(pairs[idx][1]))}`,
  };
}
