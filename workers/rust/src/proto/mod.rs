//! The canonical schema (`proto/arena.proto`) as Rust types: prost messages with serde derives
//! for the canonical JSON mapping, plus the tonic server trait.

pub mod json;
pub mod large_data;

#[allow(clippy::all)]
mod generated {
    tonic::include_proto!("arena");
}

pub use generated::arena_server;
pub use generated::*;
