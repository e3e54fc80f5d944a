//! `grpc-tonic`: the tonic unary server for every operation plus the bidi `InvertStream`, and
//! the tonic client (one Channel per client; ping-pong on one stream in stream mode). With a
//! Redis it also serves, and its client drives, `predictions.Predictions/GetPredictions`; with a
//! user's schema, its method: unary, a bidirectional stream, or a one-way stream a call.

mod client;
mod oneway;
mod server;
mod stream;
mod user;

use super::Contender;

pub const CONTENDER: Contender = Contender {
    id: "grpc-tonic",
    protocol: "grpc",
    version: concat!("tonic ", env!("RPCARENA_VERSION_TONIC")),
    server: Some(server::serve),
    client: Some(client::connector),
};

/// The gRPC path of an operation: `/arena.Arena/Invert`, `/predictions.Predictions/GetPredictions`.
fn path<M: crate::methods::Rpc>() -> tonic::codegen::http::uri::PathAndQuery {
    format!("/{}/{}", M::SERVICE, M::NAME).parse().expect("service and method names are valid path segments")
}
