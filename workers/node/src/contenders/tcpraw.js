// tcp-raw-node: the floor of a Node client. Frames of a 4-byte big-endian length and that many
// bytes over one persistent TCP connection per client (TCP_NODELAY), echoed unchanged by a
// net.Server; no RPC library. The server keeps the contract's bounds: a frame over
// MAX_REQUEST_BYTES closes the connection, a frame's bytes are kept as they arrive (never a buffer
// of the length a header announces), and a connection idle for the idle timeout is closed. Reading
// pauses while a peer leaves its echoes untaken, so such a peer goes idle and is closed too.
import net from "node:net";
import { MAX_REQUEST_BYTES, idleTimeoutMs, listenBacklog } from "../limits.js";
import { UsageError } from "../spec.js";
import { CallError, kindOf } from "./errors.js";

export const tool = { name: "tcp-raw-node", version: `node:net ${process.version}`, runtime: `node ${process.version}` };

const HEADER = 4;

// Splits a byte stream into frames: onFrame(frame) for each whole one, header included; false
// (and no more frames) once a header announces more than `limit`.
export class Framer {
  constructor(limit, onFrame) {
    this.limit = limit;
    this.onFrame = onFrame;
    this.chunks = [];
    this.have = 0;
  }

  push(chunk) {
    this.chunks.push(chunk);
    this.have += chunk.length;
    while (this.have >= HEADER) {
      const head = this.chunks.length === 1 ? this.chunks[0] : (this.chunks = [Buffer.concat(this.chunks)])[0];
      const length = head.readUInt32BE(0);
      if (length > this.limit) return false;
      if (this.have < HEADER + length) return true; // the rest of this frame has not come yet
      this.onFrame(head.subarray(0, HEADER + length));
      const rest = head.subarray(HEADER + length);
      this.chunks = rest.length ? [rest] : [];
      this.have = rest.length;
    }
    return true;
  }
}

// A user's method is echoed as any bytes are: the schema changes nothing here.
export const servesUser = true;

export function newServer() {
  const idle = idleTimeoutMs();
  const server = net.createServer({ noDelay: true }, (socket) => {
    // One deadline a request: a connection that has answered nothing for the idle timeout is
    // closed, however its bytes trickle in (socket.setTimeout restarts at every byte received).
    let deadline;
    const arm = () => {
      clearTimeout(deadline);
      deadline = setTimeout(() => socket.destroy(), idle);
    };
    arm();
    socket.on("close", () => clearTimeout(deadline));
    const framer = new Framer(MAX_REQUEST_BYTES, (frame) => {
      if (!socket.write(frame)) { // the peer is not taking its echoes: read no more until it does
        socket.pause();
        socket.once("drain", () => socket.resume());
      }
      arm();
    });
    socket.on("data", (chunk) => framer.push(chunk) || socket.destroy());
    socket.on("error", () => {});
  });
  return {
    listen: (host, port) => new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host, port, backlog: listenBacklog() }, () => resolve(server.address().port));
    }),
    stop: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    }),
  };
}

function frameOf(payload) {
  const frame = Buffer.alloc(HEADER + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, HEADER);
  return frame;
}

// One connection: a call writes a frame and reads the echo of it.
function dialTcp(target, timeoutMs) {
  const at = target.lastIndexOf(":");
  const host = target.slice(0, at).replace(/^\[|\]$/g, ""), port = Number(target.slice(at + 1));
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true });
    const timer = setTimeout(() => socket.destroy(new CallError("timeout", `no connection within ${timeoutMs} ms`)), timeoutMs);
    socket.once("error", (error) => { clearTimeout(timer); reject(error); });
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(connection(socket));
    });
  });
}

function connection(socket) {
  let waiting = null, failed = null;
  const fail = (error) => {
    failed ??= error;
    waiting?.reject(failed);
    waiting = null;
  };
  const framer = new Framer(Infinity, (frame) => {
    const w = waiting;
    waiting = null;
    w?.resolve(frame.subarray(HEADER));
  });
  socket.on("data", (chunk) => framer.push(chunk));
  socket.on("error", fail);
  socket.on("close", () => fail(new CallError("connection", "the server closed the connection")));
  return {
    call(frame, timeoutMs) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => fail(new CallError("timeout", `no echo within ${timeoutMs} ms`)), timeoutMs);
        waiting = { resolve: (r) => { clearTimeout(timer); resolve(r); }, reject: (e) => { clearTimeout(timer); reject(e); } };
        socket.write(frame);
      });
    },
    close: () => socket.destroy(),
  };
}

export function newClient(spec) {
  if (!spec.payloads_b64?.length) throw new UsageError("tcp-raw-node needs payloads_b64 (the requests' protobuf encodings)");
  const payloads = spec.payloads_b64.map((p) => Buffer.from(p, "base64"));
  const frames = payloads.map(frameOf);
  return {
    len: payloads.length, multiplexes: false, classify: kindOf,
    async dial(timeoutMs) {
      const conn = await dialTcp(spec.target, timeoutMs);
      return { call: (idx, t) => conn.call(frames[idx], t), close: conn.close };
    },
    matches: (idx, reply) => payloads[idx].equals(reply),
    explain: (idx, reply) => `echo of payload ${idx}: got ${reply.length} bytes that differ from the ${payloads[idx].length} sent`,
  };
}
