//! `rust-h1`, the lean HTTP/1.1 load client: every shared vector through real warp and axum
//! servers, and the framings a server may choose (chunks, close, errors) from a scripted peer.

mod common;

use common::{decode_histogram, drive_spec, invert_spec, start, vectors};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::test]
async fn every_vector_verifies_against_warp_and_axum() {
    for id in ["rest-warp", "rest-axum"] {
        let server = start(id).await;
        for v in vectors() {
            let mut spec = invert_spec("rust-h1", server.addr, 3, 1);
            spec["method"] = json!(v.method);
            spec["requests"] = json!([v.request]);
            spec["responses"] = json!([v.response]);
            spec["warmup_s"] = json!(0);
            let result = drive_spec(&spec).await;
            assert_eq!((result.calls, result.error_total()), (3, 0), "{id} {}: {:?}", v.method, result.errors);
        }
    }
}

#[tokio::test]
async fn many_clients_share_nothing_but_the_encoded_requests() {
    let server = start("rest-warp").await;
    let result = drive_spec(&invert_spec("rust-h1", server.addr, 600, 6)).await;
    assert_eq!((result.calls, result.error_total()), (600, 0), "{:?}", result.errors);
    assert_eq!(decode_histogram(&result.histogram).len(), 600);
}

#[tokio::test]
async fn wrong_bodies_are_wrong_answers_even_after_right_ones() {
    let server = start("rest-axum").await;
    let mut spec = invert_spec("rust-h1", server.addr, 30, 1);
    // A / dagger / of in turn; "dagger" expects itself (wrong) after "A" was verified right.
    spec["responses"] = json!([{"value": "A"}, {"value": "dagger"}, {"value": "fo"}]);
    let result = drive_spec(&spec).await;
    assert_eq!((result.calls, result.errors["wrong_answer"]), (20, 10), "{:?}", result.errors);
}

/// Replies, in order, to each request the scripted server reads; `None` closes the connection
/// instead of answering.
const INVERT_A: &str = "{\"value\":\"A\"}";

fn reply(head: &str, body: &str) -> Option<String> {
    Some(format!("HTTP/1.1 {head}\r\n\r\n{body}"))
}

#[tokio::test]
async fn follows_chunks_close_and_errors_and_reconnects_when_told() {
    let script = vec![
        reply("200 OK\r\nTransfer-Encoding: chunked", "4\r\n{\"va\r\n9\r\nlue\":\"A\"}\r\n0\r\n\r\n"),
        reply(&format!("200 OK\r\nContent-Length: {}\r\nConnection: close", INVERT_A.len()), INVERT_A),
        // The next connection: a body that ends with the connection.
        reply("200 OK", INVERT_A),
        // The third: an error status with a body, then a right answer on the same connection.
        reply("500 Internal Server Error\r\nContent-Length: 4", "oops"),
        reply(&format!("200 OK\r\nContent-Length: {}", INVERT_A.len()), INVERT_A),
    ];
    let (addr, connections) = scripted(script).await;
    let result = drive_spec(&one_by_one(addr, 5)).await;
    assert_eq!(result.calls, 4, "{:?}", result.errors);
    assert_eq!(result.errors["status_500"], 1, "{:?}", result.errors);
    assert_eq!(result.error_total(), 1, "{:?}", result.errors);
    assert_eq!(connections.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn broken_framing_is_an_error_and_a_fresh_connection() {
    let script = vec![
        // Bytes past the declared length: nothing is pipelined, so the reply is broken.
        reply("200 OK\r\nContent-Length: 2", "{}{}"),
        reply("200 OK\r\nContent-Length: x", ""),
        None,
        reply(&format!("200 OK\r\nContent-Length: {}", INVERT_A.len()), INVERT_A),
    ];
    let (addr, connections) = scripted(script).await;
    let result = drive_spec(&one_by_one(addr, 4)).await;
    assert_eq!((result.calls, result.errors["other"], result.errors["connection"]), (1, 2, 1), "{:?}", result.errors);
    assert_eq!(connections.load(Ordering::SeqCst), 4);
}

/// `calls` Invert("A") calls by one client, no warm-up.
fn one_by_one(addr: SocketAddr, calls: u64) -> serde_json::Value {
    let mut spec = invert_spec("rust-h1", addr, calls, 1);
    spec["requests"] = json!([{"value": "A"}]);
    spec["responses"] = json!([{"value": "A"}]);
    spec["warmup_s"] = json!(0);
    spec
}

/// A peer on 127.0.0.1:0 that reads requests and answers them from `script`, one entry per
/// request across connections; it also counts the connections it accepted.
async fn scripted(script: Vec<Option<String>>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let accepted = connections.clone();
    tokio::spawn(async move {
        let mut replies = script.into_iter();
        'accept: while let Ok((mut stream, _)) = listener.accept().await {
            accepted.fetch_add(1, Ordering::SeqCst);
            while read_request(&mut stream).await {
                match replies.next() {
                    Some(Some(text)) => {
                        let closes = text.contains("Connection: close") || !text.contains("ength: ") && !text.contains("chunked");
                        stream.write_all(text.as_bytes()).await.unwrap();
                        if closes {
                            continue 'accept;
                        }
                    }
                    Some(None) => continue 'accept,
                    None => break 'accept,
                }
            }
        }
    });
    (addr, connections)
}

/// Reads one request (head and Content-Length body); false when the client went away.
async fn read_request(stream: &mut TcpStream) -> bool {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => buf.push(byte[0]),
            _ => return false,
        }
    }
    let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let length = head.lines().find_map(|l| l.strip_prefix("content-length: ")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await.is_ok()
}
