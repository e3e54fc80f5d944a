//! The registry of contenders this worker implements. A contender is one module with a
//! `CONTENDER` value; adding one means adding its module and one line to [`ALL`].

mod capnp_rpc;
pub mod grpc_tonic;
pub mod http_json;
pub mod rest_axum;
pub mod rest_warp;
pub mod target;
pub mod tcp_raw;

use crate::drive::call::{BoxFut, SharedConnector};
use crate::drive::spec::{Spec, SpecError};
use crate::predictions::Store;
use crate::userschema::served::Served;
use std::io;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Resolves when the server must stop accepting and finish.
pub type Shutdown = BoxFut<'static, ()>;
/// Serves on an already bound listener until `Shutdown` resolves.
pub type ServeFn = fn(TcpListener, ServerOptions, Shutdown) -> BoxFut<'static, io::Result<()>>;
/// Builds the client side for a spec (decoding its payloads once), or says why it cannot.
pub type ClientFn = fn(&Spec) -> Result<SharedConnector, SpecError>;

/// What `serve` passes on beyond the listener.
#[derive(Clone, Default)]
pub struct ServerOptions {
    /// The predictions seed's Redis (`--redis`): servers that know `predictions.Predictions`
    /// serve it only then.
    pub predictions: Option<Store>,
    /// The user's method (`--schema served.json`): servers that serve a user's schema add it.
    pub user: Option<Arc<Served>>,
}

pub struct Contender {
    /// What users type; also `tool.name` in results.
    pub id: &'static str,
    pub protocol: &'static str,
    /// The library under test and its version, for `tool.version`.
    pub version: &'static str,
    pub server: Option<ServeFn>,
    pub client: Option<ClientFn>,
}

pub static ALL: &[Contender] = &[
    grpc_tonic::CONTENDER,
    rest_warp::CONTENDER,
    rest_axum::CONTENDER,
    http_json::h1::CONTENDER,
    tcp_raw::CONTENDER,
    target::CONTENDER,
    capnp_rpc::CONTENDER,
];

pub fn find(id: &str) -> Option<&'static Contender> {
    ALL.iter().find(|c| c.id == id)
}

/// "a, b, c": the ids, for error messages.
pub fn ids() -> String {
    ALL.iter().map(|c| c.id).collect::<Vec<_>>().join(", ")
}
