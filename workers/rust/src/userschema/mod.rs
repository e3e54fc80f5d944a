//! A user's own method (`rpcarena run --proto F --method pkg.Service/Call`), served and called
//! with the Rust code generated from that schema: a per-schema build of this worker (worker.json
//! `schema_build`) sets `RPCARENA_USER_SCHEMA`, and build.rs generates prost's messages,
//! pbjson's proto JSON and a table of one type per method (`generated`). Every transport is then
//! written once, generically over the method's `<Req, Resp>`, as for the arena's operations: no
//! dynamic messages on the measured path.
//!
//! The server reads the file rpcarena writes for the run (`serve --schema PATH`, [`served`]);
//! the drivers get the method by its key when the spec carries `schema_b64`.

pub mod answer;
pub mod served;
pub mod well_known;
pub mod work;

use crate::methods::Rpc;

/// The generated code of the user's schema and its dispatch table (empty without a schema).
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/user_schema.rs"));
}

/// A method of the user's schema: its generated types, and which way it streams.
pub trait UserRpc: Rpc {
    const STREAMS: Streams;
}

/// Which side of a method's calls is a stream, as its .proto says (`stream` before the request,
/// the reply, or both). A one-way stream (client or server) is a stream a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    /// Unary: one request, one reply.
    Neither,
    /// A client stream: many requests, one reply.
    Client,
    /// A server stream: one request, many replies.
    Server,
    /// A bidirectional stream.
    Both,
}

/// What is done with the method a key names, monomorphised over its generated types.
pub trait UserVisitor {
    type Out;
    fn visit<M: UserRpc>(self) -> Self::Out;
}

/// How a worker gets a schema's generated code.
pub const NOT_BUILT: &str =
    "this worker was not built with the schema: rpcarena builds a variant of the Rust worker per schema (worker.json schema_build)";

/// Calls `visitor` with the user's method `key` ("pkg.Service/Method"), or says why there is none.
pub fn visit<V: UserVisitor>(key: &str, visitor: V) -> Result<V::Out, String> {
    match key.split_once('/') {
        Some((service, name)) if !service.is_empty() && !name.is_empty() => {
            generated::visit(key, visitor).unwrap_or_else(|| Err(format!("no method {key}: {NOT_BUILT}")))
        }
        _ => Err(format!("bad user method {key:?}: give package.Service/Method")),
    }
}
