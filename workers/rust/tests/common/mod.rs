//! Helpers shared by the integration tests: in-process servers on port 0, the shared vectors,
//! driving a spec, decoding histograms; the binary (`process`), the golden contract documents
//! and their validator (`contract`), a throwaway Redis (`redis`).
#![allow(dead_code)]

pub mod contract;
pub mod process;
pub mod redis;

use base64::Engine;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use rpcarena_worker::contenders::ServerOptions;
use rpcarena_worker::drive::{self, report::DriveResult};
use rpcarena_worker::{contenders, serve};
use serde_json::{json, Value};
use std::net::SocketAddr;
use tokio::sync::oneshot;

/// Every registered contender that serves: a new one is driven end to end without a test edit.
pub fn servers() -> Vec<&'static str> {
    contenders::ALL.iter().filter(|c| c.server.is_some()).map(|c| c.id).collect()
}

/// A contender's server running on this test's runtime until dropped.
pub struct Server {
    pub addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

pub async fn start(id: &str) -> Server {
    start_with(id, ServerOptions::default()).await
}

pub async fn start_with(id: &str, options: ServerOptions) -> Server {
    let serve_fn = contenders::find(id).and_then(|c| c.server).expect("contender has a server");
    let listener = serve::bind("127.0.0.1", 0).await.expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_fn(listener, options, Box::pin(async move { drop(stopped.await) })));
    Server { addr, _stop: stop }
}

/// An address nothing listens on (bound, then released).
pub fn dead_address() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

pub struct Vector {
    pub method: String,
    pub request: Value,
    pub response: Value,
}

pub fn vectors() -> Vec<Vector> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proto/vectors/arena.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read vectors")).unwrap();
    let entries = doc["vectors"].as_array().expect("vectors list").clone();
    let vector =
        |v: Value| Vector { method: v["method"].as_str().unwrap().into(), request: v["request"].clone(), response: v["response"].clone() };
    entries.into_iter().map(vector).collect()
}

/// A small Invert spec (or its tcp-raw twin) for `contender` against `addr`.
pub fn invert_spec(contender: &str, addr: SocketAddr, calls: u64, clients: usize) -> Value {
    let mut spec = json!({
        "contract": 1, "contender": contender, "target": addr.to_string(), "method": "Invert",
        "requests": [{"value": "A"}, {"value": "dagger"}, {"value": "of"}],
        "responses": [{"value": "A"}, {"value": "reggad"}, {"value": "fo"}],
        "clients": clients, "warmup_s": 0.1, "calls": calls, "duration_s": null,
        "timeout_ms": 5000, "sample_limit": 10000, "rate_per_s": null, "arrival": "constant", "mode": "unary"
    });
    if contenders::find(contender).is_some_and(|c| c.protocol == "tcp-raw") {
        // Word{value: "dagger"} and Word{value: "A"} as protobuf.
        spec["payloads_b64"] = json!(["CgZkYWdnZXI=", "CgFB"]);
    }
    spec
}

pub async fn drive_spec(spec: &Value) -> DriveResult {
    let (spec, contender) = drive::prepare(&spec.to_string()).expect("valid spec");
    drive::drive(&spec, contender).await.expect("drivable spec")
}

pub fn decode_histogram(b64: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).expect("base64");
    Deserializer::new().deserialize(&mut bytes.as_slice()).expect("V2 histogram")
}
