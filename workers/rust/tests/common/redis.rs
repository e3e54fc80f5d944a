//! A throwaway `redis-server` for the predictions tests: a free loopback port, no persistence,
//! seeded with three clients of the arena's data set, killed when dropped.

use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const READY_TIMEOUT: Duration = Duration::from_secs(10);
const BINARY: &str = "redis-server";

/// Three clients of `src/rpcarena/workloads/predictions.py`, stored as it stores them (Python's
/// repr of each score).
pub const HASHES: [(&str, &[(&str, &str)]); 3] = [
    ("predictions:client-0000", &[("churn", "0.0"), ("upsell", "0.203125"), ("cross_sell", "0.40625")]),
    ("predictions:client-0001", &[("upsell", "0.109375"), ("cross_sell", "0.3125"), ("fraud", "0.515625"), ("default", "0.71875")]),
    (
        "predictions:client-0002",
        &[("cross_sell", "0.21875"), ("fraud", "0.421875"), ("default", "0.625"), ("retention", "0.828125"), ("premium", "0.03125")],
    ),
];

/// GetPredictions requests over [`HASHES`] and their canonical replies; the last id is unknown.
pub fn requests_and_responses() -> (Value, Value) {
    let requests =
        json!([{"id_client": "client-0000"}, {"id_client": "client-0001"}, {"id_client": "client-0002"}, {"id_client": "nobody"}]);
    let responses = json!([
        {"predictions": [{"class_name": "churn", "value": 0.0}, {"class_name": "cross_sell", "value": 0.40625}, {"class_name": "upsell", "value": 0.203125}]},
        {"predictions": [{"class_name": "cross_sell", "value": 0.3125}, {"class_name": "default", "value": 0.71875}, {"class_name": "fraud", "value": 0.515625}, {"class_name": "upsell", "value": 0.109375}]},
        {"predictions": [{"class_name": "cross_sell", "value": 0.21875}, {"class_name": "default", "value": 0.625}, {"class_name": "fraud", "value": 0.421875}, {"class_name": "premium", "value": 0.03125}, {"class_name": "retention", "value": 0.828125}]},
        {"predictions": []}
    ]);
    (requests, responses)
}

pub struct RedisServer {
    pub url: String,
    child: Child,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts and seeds a Redis; `None` (skip) when redis-server is absent, except on CI (CI=true),
/// where that fails the test.
pub fn start() -> Option<RedisServer> {
    let port = super::dead_address().port();
    let spawned = Command::new(BINARY)
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            &std::env::temp_dir().to_string_lossy(),
        ])
        .stdout(Stdio::null())
        .spawn();
    let child = match spawned {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: redis-server not found (apt-get install redis-server)");
            return None;
        }
        Err(e) => panic!("cannot start redis-server: {e} (scripts/install-system.sh installs it)"),
    };
    let server = RedisServer { url: format!("redis://127.0.0.1:{port}/0"), child };
    seed(&server.url);
    Some(server)
}

/// Waits until the server answers, then writes [`HASHES`].
fn seed(url: &str) {
    let client = redis::Client::open(url).unwrap();
    let deadline = Instant::now() + READY_TIMEOUT;
    let mut conn = loop {
        match client.get_connection() {
            Ok(conn) => break conn,
            Err(e) if Instant::now() > deadline => panic!("redis-server at {url} did not answer within {READY_TIMEOUT:?}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    for (key, fields) in HASHES {
        let mut hset = redis::cmd("HSET");
        hset.arg(key);
        for (name, value) in fields {
            hset.arg(*name).arg(*value);
        }
        hset.query::<i64>(&mut conn).unwrap();
    }
}
