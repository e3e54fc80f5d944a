// stdin as `drive` reads it: the spec (one JSON document, on one line or over several), then, when
// the spec asks for the sync handshake, one more line (or stdin's end) to open the barrier.

// The spec's text, and what came after it, still to read from `stream`.
export function readSpec(stream) {
  return new Promise((resolve, reject) => {
    let text = "";
    let scanned = 0;
    const done = (specText, rest) => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.pause();
      resolve({ text: specText, rest: { stream, buffered: rest, ended: false } });
    };
    const onData = (chunk) => {
      text += chunk;
      for (let nl = text.indexOf("\n", scanned); nl >= 0; nl = text.indexOf("\n", nl + 1)) {
        const head = text.slice(0, nl);
        if (head.trimEnd().endsWith("}") && complete(head)) return done(head, text.slice(nl + 1));
      }
      scanned = text.length;
    };
    const onEnd = () => {
      stream.off("data", onData);
      resolve({ text, rest: { stream, buffered: "", ended: true } });
    };
    stream.setEncoding("utf8");
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", reject);
  });
}

function complete(text) {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Resolves at the first non-blank line after the spec, or at stdin's end (nobody is left to wait
// for); blank lines are skipped: the spec's own line ending may still be unread.
export function waitForLine(rest) {
  if (rest.ended || /\S[^\n]*\n/.test(rest.buffered)) return Promise.resolve();
  return new Promise((resolve) => {
    const { stream } = rest;
    const finish = () => {
      stream.off("data", onData);
      stream.pause();
      resolve();
    };
    const onData = (chunk) => {
      rest.buffered += chunk;
      if (/\S[^\n]*\n/.test(rest.buffered)) finish();
    };
    stream.on("data", onData);
    stream.once("end", finish);
    stream.resume();
  });
}
