// The worker's contenders, in worker.json's order (test/manifest.test.js checks both ways). A new
// contender is a module with tool, newServer and newClient, and a line here.
import * as grpcNode from "./grpc.js";
import * as restFastify from "./rest.js";
import * as tcpRawNode from "./tcpraw.js";
import { UsageError } from "../spec.js";

export const CONTENDERS = [
  { id: "grpc-node", protocol: "grpc", ...grpcNode },
  { id: "rest-fastify", protocol: "http-json", ...restFastify },
  { id: "tcp-raw-node", protocol: "tcp-raw", ...tcpRawNode },
];

export function lookup(id) {
  const found = CONTENDERS.find((c) => c.id === id);
  if (!found) throw new UsageError(`unknown contender ${JSON.stringify(id)}; this worker has ${CONTENDERS.map((c) => c.id).join(", ")}`);
  return found;
}
