#!/usr/bin/env node
// The Node worker's command line (docs/worker-contract.md): serve, drive, list, calibrate. Every
// error ends here as one line on stderr: 2 for a command line or spec that cannot run, else 1.
import { parseArgs } from "node:util";
import { CONTENDERS, lookup } from "./contenders/index.js";
import { drive } from "./drive/run.js";
import { serve } from "./serve.js";
import { specOf, UsageError } from "./spec.js";
import { readSpec, waitForLine } from "./stdin.js";
import { openServed } from "./userschema/served.js";
import { calibrate } from "./userschema/work.js";

const USAGE = "usage: worker serve --contender ID --host 127.0.0.1 --port 0 [--redis URL] [--schema served.json] "
  + "| worker drive < spec.json | worker list | worker calibrate --server-work-us W [--calls N]";

const COMMANDS = { serve: serveCmd, drive: driveCmd, list: listCmd, calibrate: calibrateCmd };

async function main(argv) {
  const command = COMMANDS[argv[0]];
  if (!command) throw new UsageError(argv.length ? `unknown command ${JSON.stringify(argv[0])}; ${USAGE}` : USAGE);
  await command(argv.slice(1));
}

function options(args, spec) {
  try {
    return parseArgs({ args, options: spec, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${error.message}; ${USAGE}`);
  }
}

async function serveCmd(args) {
  const o = options(args, { contender: { type: "string" }, host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "0" }, redis: { type: "string" }, schema: { type: "string" } });
  const contender = lookup(o.contender);
  const port = Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`serve: --port ${o.port} is not a port`);
  if (o.redis) throw new UsageError(`serve: ${contender.id} does not serve the predictions seed (no Redis client in this worker)`);
  const user = o.schema ? openServed(o.schema) : null;
  if (user && !contender.servesUser) throw new UsageError(`serve: ${contender.id} does not serve a user's schema; grpc-node does`);
  await serve(contender, o.host, port, { user });
}

async function driveCmd() {
  const { text, rest } = await readSpec(process.stdin);
  const spec = specOf(text);
  const contender = lookup(spec.contender);
  let client;
  try {
    client = contender.newClient(spec);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${contender.id} cannot run this spec: ${error.message}`);
    throw error;
  }
  const atBarrier = spec.sync ? async () => {
    process.stdout.write(JSON.stringify({ event: "warm" }) + "\n");
    await waitForLine(rest);
  } : null;
  const result = await drive(spec, client, atBarrier);
  result.tool = contender.tool;
  process.stdout.write(JSON.stringify(result) + "\n");
}

async function listCmd() {
  process.stdout.write(JSON.stringify(CONTENDERS.map((c) => ({ id: c.id, protocol: c.protocol, tool: c.tool }))) + "\n");
}

async function calibrateCmd(args) {
  const o = options(args, { "server-work-us": { type: "string" }, calls: { type: "string", default: "1000" } });
  const workUs = Number(o["server-work-us"]), calls = Number(o.calls);
  if (!(workUs > 0) || !Number.isInteger(calls) || calls < 1) {
    throw new UsageError(`calibrate: give --server-work-us above 0 and --calls of 1 or more; ${USAGE}`);
  }
  process.stdout.write(JSON.stringify(calibrate(workUs, calls)) + "\n");
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`worker: ${error?.message ?? error}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
