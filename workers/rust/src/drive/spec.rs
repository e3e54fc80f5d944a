//! The drive spec read from stdin (worker contract, `drive`), validated once before any call.
//! Its keys, kinds and defaults follow `proto/contract/fields.json` (`tests/contract.rs` checks).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    #[default]
    Constant,
    Poisson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Unary,
    /// A bidirectional stream per client, a call one message on it (ping-pong).
    Stream,
    /// A user's client-streaming method, a stream a call: the call's requests, then one reply.
    ClientStream,
    /// A user's server-streaming method, a stream a call: one request, then the replies to its end.
    ServerStream,
}

/// Serializes back to the contract's keys, so tests can compare a parsed spec with its source.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Spec {
    /// Optional in the contract (default 1): the orchestrator always writes it, a hand-made spec may not.
    #[serde(default = "contract_version")]
    pub contract: u32,
    pub contender: String,
    pub target: String,
    pub method: String,
    #[serde(default)]
    pub requests: Vec<Value>,
    #[serde(default)]
    pub responses: Vec<Value>,
    /// tcp-raw only; nullable in the contract, and null reads as no payloads.
    #[serde(default, deserialize_with = "null_is_default")]
    pub payloads_b64: Vec<String>,
    #[serde(default = "one")]
    pub clients: usize,
    #[serde(default)]
    pub warmup_s: f64,
    #[serde(default)]
    pub calls: Option<u64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    #[serde(default = "default_sample_limit")]
    pub sample_limit: usize,
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    #[serde(default, deserialize_with = "null_is_default")]
    pub arrival: Arrival,
    /// An open loop in steps of rate (k6's ramping arrival rate), paced one after the other;
    /// `rate_per_s` is then the first stage's and `duration_s` their sum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stages: Option<Vec<Stage>>,
    #[serde(default, deserialize_with = "null_is_default")]
    pub mode: Mode,
    /// Say `{"event": "warm"}` after the warm-up and wait for a line on stdin before measuring.
    #[serde(default, deserialize_with = "null_is_default")]
    pub sync: bool,
    /// The length of each interval of the result's time series.
    #[serde(default = "default_interval_s")]
    pub interval_s: f64,
    /// `rpcarena target` only: the external target's description (kind, expect_status, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<Value>,
    /// The connections the clients share (1 to `clients`); `None`: one connection per client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<usize>,
    /// Open loop, a cell's clients shared over several drivers (nodes): this driver's calls fall
    /// due this many ns after the phase's start, so the drivers' calls interleave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_offset_ns: Option<u64>,
    /// How long a driver with a JIT may warm up while its compiler is busy. Rust compiles ahead of
    /// time: its warm-up is `warmup_s`, and this is read only to be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_max_s: Option<f64>,
    /// The user's compiled schema when `method` is one of its ("pkg.Service/Method"): the
    /// requests and responses are then its messages in proto JSON, and this worker must be the
    /// variant built with that schema (its generated types are found by the method's key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_b64: Option<String>,
}

/// One step of a staged open loop.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
pub struct Stage {
    pub rate_per_s: f64,
    pub duration_s: f64,
}

fn contract_version() -> u32 {
    1
}
fn one() -> usize {
    1
}
fn default_timeout_ms() -> u64 {
    5000
}
fn default_interval_s() -> f64 {
    1.0
}
fn default_sample_limit() -> usize {
    10_000
}
fn null_is_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A spec the worker cannot run: exit code 2 and this message on one line.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub fn bad(message: impl Into<String>) -> SpecError {
    SpecError(message.into())
}

/// How the measured phase ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    Calls(u64),
    Seconds(f64),
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let value: Value = serde_json::from_str(text).map_err(|e| bad(format!("bad spec JSON: {e}")))?;
        Spec::from_value(value)
    }

    pub fn from_value(value: Value) -> Result<Spec, SpecError> {
        let spec = Spec::deserialize(value).map_err(|e| bad(format!("bad spec: {e}")))?;
        spec.validate()?;
        Ok(spec)
    }

    fn validate(&self) -> Result<(), SpecError> {
        if self.contract != 1 {
            return Err(bad(format!("contract {} is not supported (this worker speaks 1)", self.contract)));
        }
        if self.clients == 0 {
            return Err(bad("clients must be at least 1"));
        }
        if self.requests.len() != self.responses.len() {
            return Err(bad("requests and responses must have the same length"));
        }
        if matches!(self.rate_per_s, Some(r) if !(r > 0.0 && r.is_finite())) {
            return Err(bad("rate_per_s must be a positive number"));
        }
        let positive = |x: f64| x > 0.0 && x.is_finite();
        if self.stages.iter().flatten().any(|s| !positive(s.rate_per_s) || !positive(s.duration_s)) {
            return Err(bad("stages: each needs a positive rate_per_s and duration_s"));
        }
        if self.connections.is_some_and(|m| m == 0 || m > self.clients) {
            return Err(bad(format!("connections must be from 1 to clients ({})", self.clients)));
        }
        if !(self.interval_s > 0.0 && self.interval_s.is_finite()) {
            return Err(bad("interval_s must be a positive number"));
        }
        self.stop().map(drop)
    }

    pub fn stop(&self) -> Result<Stop, SpecError> {
        match (self.calls, self.duration_s) {
            (Some(calls), _) => Ok(Stop::Calls(calls)),
            (None, Some(s)) if s > 0.0 && s.is_finite() => Ok(Stop::Seconds(s)),
            _ => Err(bad("set calls, or duration_s when calls is null")),
        }
    }

    /// Each call's time limit: the target's exact `external.timeout_us` when given (below a
    /// millisecond), else `timeout_ms`.
    pub fn timeout(&self) -> Duration {
        let exact = self.external.as_ref().and_then(|e| e.get("timeout_us")).and_then(Value::as_u64);
        exact.map_or(Duration::from_millis(self.timeout_ms), Duration::from_micros)
    }

    /// Whether the spec calls a method of the user's schema.
    pub fn user(&self) -> bool {
        self.schema_b64.as_deref().is_some_and(|s| !s.is_empty())
    }

    /// Requests/responses for typed protocols; an empty list is an error.
    pub fn json_payloads(&self) -> Result<(&[Value], &[Value]), SpecError> {
        if self.requests.is_empty() {
            return Err(bad("spec has no requests"));
        }
        Ok((&self.requests, &self.responses))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{"contract": 1, "contender": "x", "target": "127.0.0.1:1",
        "method": "Void", "requests": [{}], "responses": [{}], "calls": 10, "arrival": null}"#;

    #[test]
    fn defaults_fill_optional_fields() {
        let spec = Spec::parse(MINIMAL).unwrap();
        assert_eq!((spec.clients, spec.timeout_ms, spec.sample_limit), (1, 5000, 10_000));
        assert_eq!((spec.arrival, spec.mode, spec.stop()), (Arrival::Constant, Mode::Unary, Ok(Stop::Calls(10))));
        assert!(!spec.sync);
    }

    #[test]
    fn a_one_way_stream_has_its_mode() {
        for (name, mode) in [("client_stream", Mode::ClientStream), ("server_stream", Mode::ServerStream)] {
            assert_eq!(Spec::parse(&MINIMAL.replace("\"arrival\": null", &format!("\"mode\": {name:?}"))).unwrap().mode, mode);
        }
    }

    #[test]
    fn bad_specs_say_why() {
        let no_stop = MINIMAL.replace("\"calls\": 10", "\"calls\": null");
        assert!(Spec::parse(&no_stop).unwrap_err().0.contains("duration_s"));
        assert!(Spec::parse("{").unwrap_err().0.starts_with("bad spec JSON"));
        assert!(Spec::parse(&MINIMAL.replace("\"contract\": 1", "\"contract\": 2")).is_err());
        assert!(Spec::parse(&MINIMAL.replace("\"arrival\": null", "\"mode\": \"upload\"")).unwrap_err().0.contains("client_stream"));
        let too_many = MINIMAL.replace("\"calls\": 10", "\"calls\": 10, \"connections\": 2");
        assert!(Spec::parse(&too_many).unwrap_err().0.contains("connections must be from 1 to clients (1)"));
    }
}
