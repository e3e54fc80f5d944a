//! The binary as the orchestrator runs it: `serve` readiness and stop, `drive` exit codes.

mod common;

use common::process::{drive, serve, WORKER};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn serve_announces_ready_and_stops_when_stdin_closes() {
    let (mut child, ready) = serve("rest-axum", Stdio::piped());
    assert_eq!((ready["event"].as_str(), ready["contract"].as_u64()), (Some("ready"), Some(1)));
    assert!(ready["port"].as_u64().unwrap() > 0);
    assert_eq!(ready["pid"].as_u64(), Some(u64::from(child.id())));
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

#[test]
fn serve_with_null_stdin_runs_until_sigterm() {
    let (mut child, _) = serve("tcp-raw-rust", Stdio::null());
    assert_eq!(child.try_wait().unwrap(), None);
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert!(child.wait().unwrap().success());
}

#[test]
fn serve_bind_failure_exits_nonzero() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(WORKER)
        .args(["serve", "--contender", "rest-warp", "--host", "127.0.0.1", "--port", &port])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn drive_rejects_unrunnable_specs_with_exit_2_and_one_line() {
    let unknown_contender = r#"{"contract": 1, "contender": "nope", "target": "127.0.0.1:1", "method": "Void", "requests": [{}], "responses": [{}], "calls": 1}"#;
    let unknown_method = unknown_contender.replace("nope", "grpc-tonic").replace("\"Void\"", "\"Nope\"");
    for spec in ["not json", unknown_contender, unknown_method.as_str()] {
        let out = drive(spec);
        assert_eq!(out.status.code(), Some(2), "{spec}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{spec}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn drive_writes_one_result_document() {
    let (mut child, ready) = serve("grpc-tonic", Stdio::piped());
    let spec = serde_json::json!({"contract": 1, "contender": "grpc-tonic", "target": format!("127.0.0.1:{}", ready["port"]),
        "method": "SayHello", "requests": [{"name": "world"}], "responses": [{"message": "Hello world"}], "clients": 2, "calls": 50});
    let out = drive(&spec.to_string());
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(out.status.success());
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((result["contract"].as_u64(), result["calls"].as_u64()), (Some(1), Some(50)));
    assert_eq!(result["tool"]["name"], "grpc-tonic");
}

#[test]
fn manifest_lists_exactly_the_registered_contenders() {
    let manifest: Value = serde_json::from_str(include_str!("../worker.json")).unwrap();
    // (id, protocol, serves, drives); `"server"` defaults to true, `"client"` to false.
    let entry = |c: &Value| {
        let flag = |key: &str, default: bool| c[key].as_bool().unwrap_or(default);
        (c["id"].as_str().unwrap().to_string(), c["protocol"].as_str().unwrap().to_string(), flag("server", true), flag("client", false))
    };
    let listed: Vec<_> = manifest["contenders"].as_array().unwrap().iter().map(entry).collect();
    let registered: Vec<_> = rpcarena_worker::contenders::ALL
        .iter()
        .map(|c| (c.id.to_string(), c.protocol.to_string(), c.server.is_some(), c.client.is_some()))
        .collect();
    assert_eq!(listed, registered);
}

/// With `sync`, drive says warm after the warm-up and measures only after one more line (blank
/// lines skipped) or the end of stdin; the spec is the first line, stdin staying open after it.
#[test]
fn drive_sync_says_warm_and_waits_for_a_line_or_the_end_of_stdin() {
    let (mut server, ready) = serve("grpc-tonic", Stdio::piped());
    let spec = serde_json::json!({"contract": 1, "contender": "grpc-tonic", "target": format!("127.0.0.1:{}", ready["port"]),
        "method": "Void", "requests": [{}], "responses": [{}], "clients": 2, "calls": 200, "warmup_s": 0.1, "sync": true});
    for release in [Some("\n\ngo\n"), None] {
        let mut child = Command::new(WORKER).arg("drive").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{spec}").unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), r#"{"event": "warm"}"#);
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert_eq!(child.try_wait().unwrap(), None, "still waiting for the orchestrator");
        match release {
            Some(text) => stdin.write_all(text.as_bytes()).unwrap(),
            None => drop(stdin),
        }
        line.clear();
        out.read_line(&mut line).unwrap();
        let result: Value = serde_json::from_str(&line).expect("the result line");
        assert_eq!(result["calls"].as_u64(), Some(200), "{release:?}");
        assert!(child.wait().unwrap().success());
    }
    drop(server.stdin.take());
    assert!(server.wait().unwrap().success());
}

#[test]
fn serve_refuses_a_redis_that_does_not_answer() {
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let out = Command::new(WORKER)
        .args(["serve", "--contender", "grpc-tonic", "--port", "0", "--redis", &format!("redis://{dead}/0")])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no ready line");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}
