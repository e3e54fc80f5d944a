//! `grpc-tonic`: the tonic unary server for every operation plus the bidi `InvertStream`, and
//! the tonic client (one Channel per client; ping-pong on one stream in stream mode).

mod client;
mod server;
mod stream;

use super::Contender;

pub const CONTENDER: Contender = Contender {
    id: "grpc-tonic",
    protocol: "grpc",
    version: concat!("tonic ", env!("RPCARENA_VERSION_TONIC")),
    server: Some(server::serve),
    client: Some(client::connector),
};

/// The gRPC path of an operation of `arena.Arena`.
fn path(method: &str) -> tonic::codegen::http::uri::PathAndQuery {
    format!("/arena.Arena/{method}").parse().expect("method names are valid path segments")
}
