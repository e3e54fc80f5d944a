//! How one operation maps onto HTTP for the client: the request it sends and how it reads a 200
//! body. The contract's mapping (`POST /arena/{Method}`, canonical JSON both ways) is [`arena`];
//! the predictions seed's REST twin has its own (`super::predictions::route`).

use super::PREFIX;
use crate::methods::Rpc;
use bytes::Bytes;
use hyper::Method;

/// One HTTP request: method, path and (JSON) body.
pub struct Call {
    pub method: Method,
    pub path: String,
    pub body: Option<Bytes>,
}

pub struct Route<M: Rpc> {
    pub request: fn(&M::Req) -> Option<Call>,
    /// The reply a 200 body stands for; `None` when it is not one (a wrong answer).
    pub reply: fn(&[u8]) -> Option<M::Resp>,
}

impl<M: Rpc> Clone for Route<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Rpc> Copy for Route<M> {}

/// `POST /arena/{Method}` with the request in canonical JSON; the reply in the same mapping.
pub fn arena<M: Rpc>() -> Route<M> {
    Route { request: post_json::<M>, reply: json_reply::<M> }
}

fn post_json<M: Rpc>(request: &M::Req) -> Option<Call> {
    let body = serde_json::to_vec(request).ok()?;
    Some(Call { method: Method::POST, path: format!("{PREFIX}{}", M::NAME), body: Some(Bytes::from(body)) })
}

fn json_reply<M: Rpc>(body: &[u8]) -> Option<M::Resp> {
    serde_json::from_slice(body).ok()
}
