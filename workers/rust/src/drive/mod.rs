//! `drive`: run a spec against a server and produce the contract's result document.
//!
//! Pacing (`pacer`), calling (`client`, `call`), measuring (`recorder`, `reservoir`, `rusage`),
//! the loop (`engine`) and the result document (`report`) are separate modules.

pub mod alarm;
pub mod call;
pub mod client;
pub mod engine;
pub mod handshake;
pub mod pacer;
pub mod payloads;
pub mod recorder;
pub mod report;
pub mod reservoir;
pub mod rng;
pub mod rusage;
pub mod series;
pub mod sharing;
pub mod spec;
pub mod verify;

use crate::contenders::Contender;
use report::DriveResult;
use spec::{bad, Spec, SpecError};

/// Drives `spec` with `contender`'s client on the current tokio runtime.
pub async fn drive(spec: &Spec, contender: &Contender) -> Result<DriveResult, SpecError> {
    let make_connector = contender.client.ok_or_else(|| bad(format!("contender {} has no client in this worker", contender.id)))?;
    let connector = make_connector(spec)?;
    let gate = if spec.sync { handshake::stdio_gate() } else { Box::pin(std::future::ready(())) };
    let measured = engine::run(spec, connector, gate).await;
    Ok(DriveResult::new(measured, contender))
}

/// Parses a spec and finds its contender, before any runtime or connection exists.
pub fn prepare(text: &str) -> Result<(Spec, &'static Contender), SpecError> {
    with_contender(Spec::parse(text)?)
}

/// [`prepare`] for a spec already read as JSON.
pub fn prepare_value(value: serde_json::Value) -> Result<(Spec, &'static Contender), SpecError> {
    with_contender(Spec::from_value(value)?)
}

fn with_contender(spec: Spec) -> Result<(Spec, &'static Contender), SpecError> {
    let contender = crate::contenders::find(&spec.contender)
        .ok_or_else(|| bad(format!("unknown contender {:?}; this worker has {}", spec.contender, crate::contenders::ids())))?;
    Ok((spec, contender))
}
