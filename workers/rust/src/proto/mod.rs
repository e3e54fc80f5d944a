//! The canonical schemas as Rust types: prost messages with serde derives for the canonical JSON
//! mapping, plus the tonic server traits. `proto/arena.proto` at this level, the predictions
//! seed's `proto/predictions.proto` in [`predictions`].

pub mod json;
pub mod large_data;

#[allow(clippy::all)]
mod generated {
    tonic::include_proto!("arena");
}

/// `package predictions`: GetPredictions(id_client) over a Redis hash.
#[allow(clippy::all)]
pub mod predictions {
    tonic::include_proto!("predictions");
}

pub use generated::arena_server;
pub use generated::*;
