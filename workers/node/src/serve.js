// The contract's `serve`: start the server, print the ready line, serve until SIGTERM, SIGINT or
// the end of stdin, then stop and exit 0.
import { CONTRACT } from "./spec.js";

export async function serve(contender, host, port, opts, stdout = process.stdout) {
  const server = contender.newServer(opts);
  let bound;
  try {
    bound = await server.listen(host, port);
  } catch (error) {
    await server.stop();
    throw new Error(`cannot bind ${host}:${port}: ${error.message}`);
  }
  stdout.write(JSON.stringify({ event: "ready", port: bound, pid: process.pid, contract: CONTRACT }) + "\n");
  await stopRequested();
  await server.stop();
}

function stopRequested() {
  return new Promise((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
    process.stdin.on("end", resolve);
    process.stdin.on("error", resolve);
    process.stdin.resume();
  });
}
