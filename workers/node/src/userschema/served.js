// What grpc-node serves of a user's schema: served.json (`serve --schema PATH`, written by
// src/rpcarena/userschema/workload.py): the method, its descriptor set, how it answers (echo, the
// reply paired with each request, or one sized reply: src/rpcarena/userschema/replies.py) and its
// handler's cost, calibrated once, here.
import { readFileSync } from "node:fs";
import { UsageError } from "../spec.js";
import { parseJSON } from "../json.js";
import { Refused } from "../semantics.js";
import { fromCanonical, SERVER_OPTIONS, userMethod } from "./method.js";
import { canonicalText } from "./same.js";
import { handlerCost } from "./work.js";

const MAX_STREAM_MESSAGES = 10_000;
const KEY_OPTIONS = { longs: String, enums: Number, bytes: String }; // presence kept: no defaults

export function openServed(path) {
  let served;
  try {
    served = parseJSON(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`bad --schema ${path}: ${error.message}; give the file rpcarena wrote for the run`);
  }
  const streamMessages = Number(served.stream_messages ?? 1);
  if (!(streamMessages >= 1 && streamMessages <= MAX_STREAM_MESSAGES)) {
    throw new UsageError(`bad --schema ${path}: stream_messages ${streamMessages}: give 1 to ${MAX_STREAM_MESSAGES}`);
  }
  const user = userMethod(Buffer.from(served.descriptor_set_b64, "base64"), served.method, SERVER_OPTIONS);
  const respond = responder(served.reply, served.pairs, user);
  const { cost, calibration } = handlerCost(Number(served.server_work_us ?? 0), Number(served.server_wait_us ?? 0));
  process.stderr.write(`rpcarena: ${served.method}: ${calibration}\n`);
  return { ...user, streamMessages, answer: async (request) => { await cost(); return respond(request); } };
}

// request object (as the handler gets it) -> reply object (as the handler returns it).
function responder(mode, pairs, { Req, Res }) {
  const asServed = (Type, message) => Type.toObject(message, SERVER_OPTIONS);
  if (mode === "echo") {
    if (Req === Res) return (request) => request;
    // the request's fields read as the reply type, by field number (protobuf's wire compatibility)
    return (request) => asServed(Res, Res.decode(Req.encode(Req.fromObject(request)).finish()));
  }
  if (!Array.isArray(pairs) || pairs.length === 0) throw new UsageError(`reply ${mode} needs [request, reply] pairs`);
  if (mode === "size") {
    const reply = asServed(Res, fromCanonical(Res, pairs[0][1]));
    return () => reply;
  }
  if (mode !== "file") throw new UsageError(`reply ${JSON.stringify(mode)}: use echo, file or size`);
  // each request found by its message (a map's entries in any order), both sides read through the
  // handler's own form first
  const key = (request) => canonicalText(Req.toObject(Req.fromObject(request), KEY_OPTIONS));
  const table = new Map(pairs.map(([q, r]) => [key(asServed(Req, fromCanonical(Req, q))), asServed(Res, fromCanonical(Res, r))]));
  return (request) => {
    const reply = table.get(key(request));
    if (!reply) throw new Refused("a request that is none of the run's samples");
    return reply;
  };
}
