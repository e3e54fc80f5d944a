//! How one operation maps onto HTTP for the client: the request it sends and how it reads a 200
//! body. The contract's mapping (`POST /arena/{Method}`, canonical JSON both ways) is [`arena`];
//! the predictions seed's REST twin has its own (`super::predictions::route`).

use super::PREFIX;
use crate::drive::call::SharedConnector;
use crate::drive::spec::{bad, Mode, Spec, SpecError};
use crate::methods::{self, MethodVisitor, Rpc};
use crate::predictions::GetPredictions;
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

/// A client built for one operation along its route (what differs between the http-json clients).
pub trait ClientKind {
    fn build<M: Rpc>(spec: &Spec, route: Route<M>) -> Result<SharedConnector, SpecError>;
}

/// The connector of client kind `K` for the spec's operation: the predictions seed's own route
/// for `GetPredictions`, the contract's `POST /arena/{Method}` for every arena method.
pub fn connector<K: ClientKind>(spec: &Spec) -> Result<SharedConnector, SpecError> {
    if spec.mode != Mode::Unary {
        return Err(bad("http-json has no stream mode"));
    }
    if spec.user() {
        return super::user::connector::<K>(spec);
    }
    if spec.method == GetPredictions::NAME {
        return K::build(spec, super::predictions::route());
    }
    let unknown = || Err(bad(format!("unknown method {:?} for http-json", spec.method)));
    methods::visit(&spec.method, Visit::<K>(spec, std::marker::PhantomData)).unwrap_or_else(unknown)
}

struct Visit<'a, K>(&'a Spec, std::marker::PhantomData<K>);

impl<K: ClientKind> MethodVisitor for Visit<'_, K> {
    type Out = Result<SharedConnector, SpecError>;
    fn visit<M: methods::Method>(self) -> Self::Out {
        K::build::<M>(self.0, arena())
    }
}
