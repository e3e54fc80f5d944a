//! A spec's requests and expected responses decoded once into the operation's types.

use super::spec::{bad, Spec, SpecError};
use super::verify;
use crate::methods::Rpc;
use serde_json::Value;

pub struct Payloads<M: Rpc> {
    pub requests: Vec<M::Req>,
    pub responses: Vec<M::Resp>,
}

impl<M: Rpc> Payloads<M> {
    /// The spec's requests and responses (at least one request), decoded.
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let (requests, responses) = spec.json_payloads()?;
        Self::decode(requests, responses)
    }

    pub fn decode(requests: &[Value], responses: &[Value]) -> Result<Self, SpecError> {
        Ok(Payloads { requests: decode_all(requests, M::NAME, "request")?, responses: decode_all(responses, M::NAME, "response")? })
    }

    pub fn len(&self) -> usize {
        self.requests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// Whether `reply` equals expected response `index`.
    pub fn matches(&self, index: usize, reply: &M::Resp) -> bool {
        equal::<M>(&self.responses[index], reply)
    }
}

/// Whether `reply` equals `expected` (exact first; floats within `M::TOLERANCE`).
pub fn equal<M: Rpc>(expected: &M::Resp, reply: &M::Resp) -> bool {
    expected == reply || verify::typed_equal(expected, reply, M::TOLERANCE)
}

/// Each of `values` decoded as `method`'s `what` ("request", "response").
pub fn decode_all<T: serde::de::DeserializeOwned>(values: &[Value], method: &str, what: &str) -> Result<Vec<T>, SpecError> {
    let decode =
        |(i, v): (usize, &Value)| T::deserialize(v).map_err(|e| bad(format!("{what} {i} does not decode as {method}'s {what}: {e}")));
    values.iter().enumerate().map(decode).collect()
}
