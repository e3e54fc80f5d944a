//! `target-rust`: the Rust driver of `rpcarena target --client rust`, for HTTP/1.1 servers
//! rpcarena did not start. The spec's `external` says what the target is (kind `http`, its
//! expected status), `requests` are rendered before measuring (method, URL, headers, body) and
//! `responses` are each request's `--expect-json` checks, judged here as the Go driver judges
//! them (`check`). Calls go over rust-h1's lean connection (`h1`), which loads a server as hard
//! as wrk. gRPC, HTTP/2 and TLS are the Go driver's (`--client go`).

mod check;
mod h1;

use crate::contenders::Contender;
use crate::drive::call::SharedConnector;
use crate::drive::spec::{bad, Spec, SpecError};
use serde_json::Value;

pub const CONTENDER: Contender = Contender {
    id: "target-rust",
    protocol: "target",
    version: concat!("httparse ", env!("RPCARENA_VERSION_HTTPARSE")),
    server: None,
    client: Some(connector),
};

/// Reads the target's description and prepares its calls, or says why this driver cannot.
pub fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    let external = spec.external.as_ref().ok_or_else(|| bad("a target spec needs its external description"))?;
    let kind = external.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != "http" {
        return Err(bad(format!("target kind {kind:?}: the Rust driver calls http targets only; use --client go")));
    }
    if external.get("http2").and_then(Value::as_bool).unwrap_or(false) {
        return Err(bad("the Rust target driver speaks HTTP/1.1 only: use --client go for --http2"));
    }
    let status = match external.get("expect_status") {
        None | Some(Value::Null) => None,
        Some(code) => Some(
            code.as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .ok_or_else(|| bad(format!("expect_status of an http target is a status code, got {code}")))?,
        ),
    };
    let checks = check::decode(&spec.responses).map_err(bad)?;
    if spec.requests.is_empty() {
        return Err(bad("a target spec needs at least one request"));
    }
    h1::connector(&spec.requests, checks, status)
}
