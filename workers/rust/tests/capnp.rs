//! capnp-rust end to end: every shared vector's exact answer through its client and server, the
//! refusal of a count over the cap, calls in flight on one shared connection, and a message
//! announced past the bound closing the connection. Counts, never durations.

#![cfg(rpcarena_capnp)] // a worker built without Cap'n Proto's compiler has no capnp-rust to test

mod common;

use common::{drive_spec, start, vectors};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CAPNP: &str = "capnp-rust";

fn spec(addr: SocketAddr, method: &str, requests: Value, responses: Value, calls: u64) -> Value {
    json!({
        "contract": 1, "contender": CAPNP, "target": addr.to_string(), "method": method,
        "requests": requests, "responses": responses, "clients": 1, "warmup_s": 0.0, "calls": calls,
        "duration_s": null, "timeout_ms": 5000, "sample_limit": 10, "rate_per_s": null, "arrival": "constant",
        "mode": "unary"
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_unary_vector_is_answered_exactly() {
    let server = start(CAPNP).await;
    for v in vectors().into_iter().filter(|v| v.method != "InvertStream" && v.method != "GetPredictions") {
        let result = drive_spec(&spec(server.addr, &v.method, json!([v.request]), json!([v.response]), 2)).await;
        assert_eq!((result.calls, result.error_total()), (2, 0), "{} {:?}", v.method, result.errors);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_over_the_cap_is_a_failed_exception_and_the_connection_lives_on() {
    let server = start(CAPNP).await;
    let over = spec(server.addr, "GetRandNums", json!([{"count": 1_000_001, "seed": 1}]), json!([{}]), 3);
    let result = drive_spec(&over).await;
    assert_eq!(result.errors.get("status_failed"), Some(&3), "{:?}", result.errors);
    assert_eq!(result.errors.get("connection"), Some(&0), "{:?}", result.errors);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_sharing_one_connection_have_calls_in_flight_together() {
    let server = start(CAPNP).await;
    let mut shared = spec(server.addr, "EchoString", json!([{"value": "x"}]), json!([{"value": "x"}]), 400);
    shared["clients"] = json!(8);
    shared["connections"] = json!(1);
    let result = drive_spec(&shared).await;
    assert_eq!((result.calls, result.error_total()), (400, 0), "{:?}", result.errors);
    assert_eq!(result.connections, Some(1));
    assert!(result.inflight_max.unwrap_or(0) > 1, "in flight at most {:?}", result.inflight_max);
}

/// A segment table announcing one segment past the bound: the server closes the connection
/// without reading (or allocating) the segment, and answers the next client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_announced_past_the_bound_closes_the_connection() {
    let server = start(CAPNP).await;
    let mut sock = TcpStream::connect(server.addr).await.unwrap();
    let words = (rpcarena_worker::limits::MAX_REQUEST_BYTES / 8 + 1) as u32;
    let mut table = 0u32.to_le_bytes().to_vec();
    table.extend_from_slice(&words.to_le_bytes());
    sock.write_all(&table).await.unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match sock.read(&mut buf).await {
                Ok(0) | Err(_) => return "closed",
                Ok(_) => continue, // an abort message before the close
            }
        }
    });
    assert_eq!(read.await, Ok("closed"));
    let after = spec(server.addr, "SayHello", json!([{"name": "after"}]), json!([{"message": "Hello after"}]), 2);
    assert_eq!(drive_spec(&after).await.error_total(), 0);
}
