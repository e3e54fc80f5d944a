//! End to end: each server on 127.0.0.1:0 driven by this worker's clients. Counts, never durations.

mod common;

use common::{dead_address, decode_histogram, drive_spec, invert_spec, servers, start};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_contender_completes_200_verified_calls() {
    for id in servers() {
        let server = start(id).await;
        let result = drive_spec(&invert_spec(id, server.addr, 200, 2)).await;
        assert_eq!((result.calls, result.error_total()), (200, 0), "{id}: {:?}", result.errors);
        assert_eq!(decode_histogram(&result.histogram).len(), 200, "{id}");
        assert_eq!(result.samples.len(), 200, "{id}");
        assert!(result.histogram_uncorrected.is_none());
    }
}

#[tokio::test]
async fn grpc_stream_mode_pings_on_one_stream_per_client() {
    let server = start("grpc-tonic").await;
    let mut spec = invert_spec("grpc-tonic", server.addr, 200, 2);
    spec["method"] = json!("InvertStream");
    spec["mode"] = json!("stream");
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.error_total()), (200, 0), "{:?}", result.errors);
    assert_eq!(decode_histogram(&result.histogram).len(), 200);
}

#[tokio::test]
async fn wrong_answers_are_counted_not_sampled() {
    for id in ["grpc-tonic", "rest-warp", "rest-axum"] {
        let server = start(id).await;
        let mut spec = invert_spec(id, server.addr, 30, 2);
        spec["responses"] = json!([{"value": "A"}, {"value": "dagger"}, {"value": "of"}]);
        let result = drive_spec(&spec).await;
        // Calls cycle A / dagger / of: "A" inverts to itself, the other two expectations are wrong.
        assert_eq!((result.calls, result.errors["wrong_answer"]), (10, 20), "{id}");
        assert_eq!(decode_histogram(&result.histogram).len(), 10, "{id}");
    }
}

#[tokio::test]
async fn tcp_raw_reply_that_differs_is_a_wrong_answer() {
    // A server that answers every frame with a frame of the same length but other bytes.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut frame = [0u8; 8];
        while stream.read_exact(&mut frame).await.is_ok() {
            frame[4..].fill(b'x');
            let _ = stream.write_all(&frame).await;
        }
    });
    let mut spec = invert_spec("tcp-raw-rust", addr, 5, 1);
    spec["payloads_b64"] = json!(["CgJvZg=="]); // Word{value: "of"}: 4 bytes
    spec["warmup_s"] = json!(0);
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.errors["wrong_answer"]), (0, 5));
}

#[tokio::test]
async fn a_server_that_is_down_gives_connection_errors() {
    for id in servers() {
        let result = drive_spec(&invert_spec(id, dead_address(), 20, 2)).await;
        assert_eq!((result.calls, result.errors["connection"]), (0, 20), "{id}: {:?}", result.errors);
        assert_eq!(decode_histogram(&result.histogram).len(), 0);
    }
}

#[tokio::test]
async fn a_server_that_never_answers_gives_timeouts() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let mut spec = invert_spec("tcp-raw-rust", addr, 3, 1);
    spec["timeout_ms"] = json!(50);
    spec["warmup_s"] = json!(0);
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.errors["timeout"]), (0, 3));
}

#[tokio::test]
async fn open_loop_times_every_call_twice_and_duration_mode_stops() {
    let server = start("rest-axum").await;
    let mut spec = invert_spec("rest-axum", server.addr, 100, 2);
    spec["rate_per_s"] = json!(2000.0);
    spec["arrival"] = json!("poisson");
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.error_total()), (100, 0));
    assert_eq!(decode_histogram(result.histogram_uncorrected.as_deref().unwrap()).len(), 100);
    assert!(result.late_calls <= 100);

    let mut timed = invert_spec("rest-axum", server.addr, 0, 2);
    timed["calls"] = json!(null);
    timed["duration_s"] = json!(0.1);
    let result = drive_spec(&timed).await;
    assert!(result.calls > 0);
    assert_eq!(result.error_total(), 0);
}

#[tokio::test]
async fn reservoir_keeps_sample_limit_samples() {
    let server = start("tcp-raw-rust").await;
    let mut spec = invert_spec("tcp-raw-rust", server.addr, 300, 3);
    spec["sample_limit"] = json!(50);
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.samples.len()), (300, 50));
    assert!(result.samples.iter().all(|[index, ns]| *index < 300 && *ns > 0));
}
