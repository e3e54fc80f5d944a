// Error kinds of the contract (counts, never latency): a failure tagged with its kind where it is
// known, else read from Node's own error codes.
export class CallError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTCONN", "ECONNABORTED", "EHOSTUNREACH",
  "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "UND_ERR_DESTROYED", "UND_ERR_CONNECT_TIMEOUT"]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ABORT_ERR"]);

export function kindOf(error) {
  if (error?.kind) return error.kind;
  const code = error?.code ?? error?.cause?.code;
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (CONNECTION_CODES.has(code)) return "connection";
  return "other";
}
