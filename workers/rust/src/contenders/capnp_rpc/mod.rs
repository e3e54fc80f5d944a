//! `capnp-rust`: Cap'n Proto RPC with the capnp and capnp-rpc crates, the schema
//! (`capnp/arena.capnp`, arena.proto's messages and unary rpcs) compiled by the `capnp` tool
//! through capnpc at build time. The server and each client connection are a two-party vat over
//! one TCP connection (`vat`); calls carry a question id, so one connection takes many calls in
//! flight (`--connections`).
//!
//! capnp-rpc is single-threaded (its RpcSystem and clients hold `Rc`s): the server runs on a
//! thread of its own with a LocalSet, as its examples do, and so does each driver's side of its
//! connections (`client`); the drive loop's tasks hand each call to that thread, which costs
//! every call two hand-offs between threads that no other contender pays.
//!
//! Built only where Cap'n Proto's compiler was found (the `rpcarena_capnp` cfg, set by build.rs);
//! elsewhere `left_out` stands in and says what to install.

#[cfg(rpcarena_capnp)]
mod client;
#[cfg(rpcarena_capnp)]
mod convert;
#[cfg(rpcarena_capnp)]
mod server;
#[cfg(rpcarena_capnp)]
mod throttle;
#[cfg(rpcarena_capnp)]
mod vat;

#[cfg(not(rpcarena_capnp))]
mod left_out;
#[cfg(not(rpcarena_capnp))]
use left_out as client;
#[cfg(not(rpcarena_capnp))]
use left_out as server;

use super::Contender;

/// capnpc's code for the schema, where its own paths expect it (`default_parent_module`).
#[cfg(rpcarena_capnp)]
#[allow(dead_code, unused_imports, clippy::all)]
mod arena_capnp {
    include!(concat!(env!("OUT_DIR"), "/arena_capnp.rs"));
}

pub const CONTENDER: Contender = Contender {
    id: "capnp-rust",
    protocol: "capnp",
    version: concat!("capnp-rpc ", env!("RPCARENA_VERSION_CAPNP_RPC")),
    server: Some(server::serve),
    client: Some(client::connector),
};
