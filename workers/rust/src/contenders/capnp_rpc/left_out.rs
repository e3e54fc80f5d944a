//! capnp-rust in a worker built without Cap'n Proto's compiler: its server and client say so and
//! what to install. rpcarena lists the contender unavailable for the same reason (its entry in
//! worker.json `requires` capnp), so only a hand-typed command reaches these.

use crate::contenders::{ServerOptions, Shutdown};
use crate::drive::call::{BoxFut, SharedConnector};
use crate::drive::spec::{bad, Spec, SpecError};
use std::io;
use tokio::net::TcpListener;

const WHY: &str = "capnp-rust was left out of this build: no capnp on PATH when it was built \
                   (apt-get install capnproto, then rebuild the worker)";

pub(super) fn serve(_: TcpListener, _: ServerOptions, _: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async { Err(io::Error::other(WHY)) })
}

pub(super) fn connector(_: &Spec) -> Result<SharedConnector, SpecError> {
    Err(bad(WHY))
}
