//! A user's method over HTTP/JSON: `POST /package.Service/Method`, the mapping rest-fastapi and
//! rest-go serve it on (src/rpcarena/contenders/http_mapping.py), so any client calls any server.
//! Bodies are the method's generated messages in proto JSON, through pbjson's serde impls (the
//! proto3 JSON mapping a Rust user of prost writes JSON with; the .proto's field names and enum
//! numbers, as the canonical replies hold them). The server side is framework-independent, as
//! `dispatch` is: warp and axum hand it the path and the body.

use super::dispatch::Reply;
use super::route::{Call, ClientKind, Route};
use crate::drive::call::{BoxFut, SharedConnector};
use crate::drive::spec::{bad, Spec, SpecError};
use crate::methods::Rpc;
use crate::userschema::served::{Handler, Served};
use crate::userschema::{Streams, UserRpc, UserVisitor};
use bytes::Bytes;
use hyper::Method;
use std::sync::Arc;

/// The user's method as an HTTP server answers it: its path, and its typed handler behind a
/// function of the body (built once, when the server starts).
#[derive(Clone)]
pub struct UserRoute {
    pub path: String,
    answer: Arc<dyn Fn(Bytes) -> BoxFut<'static, Reply> + Send + Sync>,
}

impl UserRoute {
    pub fn of(served: &Served) -> UserRoute {
        crate::userschema::visit(&served.file.method, Build(served)).expect("checked when served.json was loaded")
    }

    /// The reply to `body` when `path` is the method's, else `None` (another route's request).
    pub fn respond(&self, path: &str, body: Bytes) -> Option<BoxFut<'static, Reply>> {
        (path == self.path).then(|| (self.answer)(body))
    }
}

struct Build<'a>(&'a Served);

impl UserVisitor for Build<'_> {
    type Out = UserRoute;
    fn visit<M: UserRpc>(self) -> UserRoute {
        let handler = self.0.handler::<M>();
        UserRoute { path: path::<M>(), answer: Arc::new(move |body| Box::pin(answer(handler.clone(), body))) }
    }
}

/// 400 with the reason for a body that is not the request message (or a request the reply file
/// has no answer for).
async fn answer<M: UserRpc>(handler: Arc<Handler<M>>, body: Bytes) -> Reply {
    let request = match serde_json::from_slice::<M::Req>(&body) {
        Ok(request) => request,
        Err(e) => return Reply::BadRequest(format!("request does not decode as {}'s request: {e}", M::NAME)),
    };
    match handler.answer(request).await {
        Ok(reply) => Reply::Ok(serde_json::to_vec(&reply).unwrap_or_default()),
        Err(why) => Reply::BadRequest(why),
    }
}

fn path<M: Rpc>() -> String {
    format!("/{}/{}", M::SERVICE, M::NAME)
}

/// The client's side: the connector of client kind `K` for the spec's user method.
pub fn connector<K: ClientKind>(spec: &Spec) -> Result<SharedConnector, SpecError> {
    crate::userschema::visit(&spec.method, Visit::<K>(spec, std::marker::PhantomData)).map_err(bad)?
}

struct Visit<'a, K>(&'a Spec, std::marker::PhantomData<K>);

impl<K: ClientKind> UserVisitor for Visit<'_, K> {
    type Out = Result<SharedConnector, SpecError>;
    fn visit<M: UserRpc>(self) -> Self::Out {
        if M::STREAMS != Streams::Neither {
            return Err(bad(format!("{}/{}: a stream has no REST/JSON form", M::SERVICE, M::NAME)));
        }
        K::build::<M>(self.0, Route { request: post::<M>, reply: |body| serde_json::from_slice(body).ok() })
    }
}

fn post<M: Rpc>(request: &M::Req) -> Option<Call> {
    let body = serde_json::to_vec(request).ok()?;
    Some(Call { method: Method::POST, path: path::<M>(), body: Some(Bytes::from(body)) })
}
