//! The worker binary as the orchestrator runs it: `serve` up to its ready line, `drive` with a
//! spec on stdin.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};

pub const WORKER: &str = env!("CARGO_BIN_EXE_rpcarena-worker");

/// Starts `serve --contender ID` on 127.0.0.1:0 and reads its ready line.
pub fn serve(contender: &str, stdin: Stdio) -> (Child, Value) {
    let mut child = Command::new(WORKER)
        .args(["serve", "--contender", contender, "--host", "127.0.0.1", "--port", "0"])
        .stdin(stdin)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start worker");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (child, serde_json::from_str(&line).expect("one JSON ready line"))
}

/// Closes a server's stdin, its stop signal, and checks that it exits 0.
pub fn stop(mut server: Child) {
    drop(server.stdin.take());
    assert!(server.wait().unwrap().success(), "serve exits 0 when its stdin closes");
}

/// Runs `drive` with `spec` on stdin, to its exit.
pub fn drive(spec: &str) -> Output {
    let mut child = Command::new(WORKER).arg("drive").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(spec.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}
