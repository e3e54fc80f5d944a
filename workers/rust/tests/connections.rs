//! The spec's `connections`: N clients over M connections, counted where a real server accepts
//! them (a relay in front of it counts the sockets). Counts, never durations.

mod common;

use common::{decode_histogram, drive_spec, invert_spec, start};
use rpcarena_worker::drive::report::DriveResult;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};

const CLIENTS: usize = 8;
const CONNECTIONS: usize = 2;
const CALLS: u64 = 200;

/// A relay to `server` on 127.0.0.1:0 that counts the connections it accepts.
struct Counted {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
}

async fn counted(server: SocketAddr) -> Counted {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(server).await else { return };
                let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            });
        }
    });
    Counted { addr, accepted }
}

/// Drives `spec` (its target replaced by a counting relay to `server`) with the shared connections.
async fn drive_shared(mut spec: Value, server: SocketAddr) -> (DriveResult, usize) {
    let relay = counted(server).await;
    spec["target"] = json!(relay.addr.to_string());
    spec["clients"] = json!(CLIENTS);
    spec["connections"] = json!(CONNECTIONS);
    let result = drive_spec(&spec).await;
    (result, relay.accepted.load(Ordering::SeqCst))
}

/// Where a connection carries one call at a time: a pool, every measured call's wait recorded.
fn assert_pooled(what: &str, result: &DriveResult, accepted: usize) {
    assert_eq!((result.calls, result.error_total()), (CALLS, 0), "{what}: {:?}", result.errors);
    assert_eq!((accepted, result.connections), (CONNECTIONS, Some(CONNECTIONS)), "{what}");
    assert!(result.inflight_max.is_some_and(|max| (1..=CONNECTIONS as u64).contains(&max)), "{what}: {:?}", result.inflight_max);
    let waits = decode_histogram(result.histogram_conn_wait.as_deref().expect("a pool records its waits"));
    assert_eq!(waits.len(), CALLS, "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_clients_share_channels_many_calls_in_flight_on_each() {
    let server = start("grpc-tonic").await;
    let unary = invert_spec("grpc-tonic", server.addr, CALLS, CLIENTS);
    let mut stream = unary.clone();
    stream["method"] = json!("InvertStream");
    stream["mode"] = json!("stream");
    for (mode, spec) in [("unary", unary), ("stream", stream)] {
        let (result, accepted) = drive_shared(spec, server.addr).await;
        assert_eq!((result.calls, result.error_total()), (CALLS, 0), "{mode}: {:?}", result.errors);
        assert_eq!((accepted, result.connections), (CONNECTIONS, Some(CONNECTIONS)), "{mode}");
        // 8 closed-loop clients released together: more calls in flight than connections.
        assert!(
            result.inflight_max.is_some_and(|max| max > CONNECTIONS as u64 && max <= CLIENTS as u64),
            "{mode}: {:?}",
            result.inflight_max
        );
        assert!(result.histogram_conn_wait.is_none(), "{mode}: a multiplexed call waits for no connection");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_and_tcp_raw_clients_borrow_from_a_pool() {
    let (warp, axum, raw) = (start("rest-warp").await, start("rest-axum").await, start("tcp-raw-rust").await);
    let cases = [("rest-warp", warp.addr), ("rest-axum", axum.addr), ("rust-h1", axum.addr), ("tcp-raw-rust", raw.addr)];
    for (id, server) in cases {
        let (result, accepted) = drive_shared(invert_spec(id, server, CALLS, CLIENTS), server).await;
        assert_pooled(id, &result, accepted);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_target_driver_borrows_from_a_pool() {
    let server = start("rest-axum").await;
    let relay = counted(server.addr).await;
    let request = json!({"method": "POST", "url": format!("http://{}/arena/Invert", relay.addr),
                         "headers": {"Content-Type": "application/json"}, "body": "{\"value\":\"dagger\"}"});
    let spec = json!({"contract": 1, "contender": "target-rust", "target": relay.addr.to_string(), "method": "POST /arena/Invert",
                      "requests": [request], "responses": [[["value", "reggad"]]], "clients": CLIENTS, "connections": CONNECTIONS,
                      "warmup_s": 0.1, "calls": CALLS, "external": {"kind": "http", "expect_status": 200}});
    let result = drive_spec(&spec).await;
    assert_pooled("target-rust", &result, relay.accepted.load(Ordering::SeqCst));
}

#[tokio::test]
async fn without_connections_each_client_has_its_own_and_no_sharing_figures() {
    let server = start("grpc-tonic").await;
    let relay = counted(server.addr).await;
    let result = drive_spec(&invert_spec("grpc-tonic", relay.addr, 40, 3)).await;
    assert_eq!((result.calls, relay.accepted.load(Ordering::SeqCst)), (40, 3));
    assert_eq!((result.connections, result.inflight_max, result.histogram_conn_wait), (None, None, None));
}
