//! The worker against the golden contract documents of `proto/contract/` (generated from
//! `src/rpcarena/contract.py`): the spec parser reads every golden spec to the file's own values
//! and accepts every spec the field table allows; what the binary really emits (ready lines,
//! drive results) follows `fields.json`. Counts and shapes, never durations.

mod common;

use common::contract::{assert_follows, fields, golden, golden_specs, violations};
use common::process::{drive, serve, stop};
use common::{dead_address, invert_spec, servers};
use rpcarena_worker::contenders;
use rpcarena_worker::drive::spec::Spec;
use serde_json::{json, Map, Value};
use std::net::SocketAddr;
use std::process::Stdio;

#[test]
fn every_golden_spec_parses_to_the_files_values() {
    let specs = golden_specs();
    assert!(specs.len() >= 4, "proto/contract/ should hold the closed-loop, open-loop, tcp-raw and stream specs, found {}", specs.len());
    for (name, text) in specs {
        let spec = Spec::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let parsed = serde_json::to_value(&spec).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        for (key, value) in file.as_object().unwrap() {
            let got = parsed.get(key).unwrap_or(&Value::Null);
            assert!(same(value, got), "{name}: {key:?} is {value} in the file but {got} once parsed (null: the parser ignores the key)");
        }
        // Each key the parser reads is in the contract, read as the contract's JSON kind.
        assert_follows("drive_spec", &parsed);
    }
}

/// Equal JSON, numbers by value: `1.0` and `1` are the same number here; their kinds are checked
/// apart, against the field table.
fn same(expected: &Value, got: &Value) -> bool {
    match (expected.as_f64(), got.as_f64()) {
        (Some(e), Some(g)) => e == g,
        _ => expected == got,
    }
}

/// The golden specs name Go contenders; the Rust client of the same protocol must run them too:
/// each builds a client whose payloads decode as the method's messages.
#[test]
fn every_golden_spec_builds_the_rust_client_of_its_protocol() {
    for (name, text) in golden_specs() {
        let spec = Spec::parse(&text).unwrap();
        // Only payloads_b64 tells a tcp-raw spec apart; grpc-tonic is the Rust client of every mode.
        let (twin, expected) = match spec.payloads_b64.len() {
            0 => ("grpc-tonic", spec.requests.len()),
            n => ("tcp-raw-rust", n),
        };
        let client = contenders::find(twin).and_then(|c| c.client).expect("registered client");
        let connector = client(&spec).unwrap_or_else(|e| panic!("{name} with {twin}: {e}"));
        assert_eq!(connector.payload_count(), expected, "{name} with {twin}");
    }
}

/// The parser accepts what the field table allows: every key it does not require left out, and
/// every nullable key set to null.
#[test]
fn the_parser_accepts_every_optional_key_left_out_and_every_nullable_key_null() {
    let full = golden("spec.closed-loop.json");
    let table = fields("drive_spec");
    // calls and requests/responses stay: across keys the contract needs calls or duration_s, and
    // requests or payloads_b64 (DriveSpec.validate in contract.py).
    let kept = |key: &str| table[key]["required"] == true || ["calls", "requests", "responses"].contains(&key);
    let minimal: Map<String, Value> = table.keys().filter(|k| kept(k)).map(|k| (k.clone(), full[k].clone())).collect();
    let spec = Spec::parse(&Value::Object(minimal).to_string()).unwrap_or_else(|e| panic!("only the required keys: {e}"));
    assert_eq!(spec.contract, 1);

    // With both calls and duration_s set, either may be null alone.
    let mut base = full.clone();
    base["duration_s"] = json!(1.5);
    let nullable = table.iter().filter(|(_, field)| field["nullable"] == true).map(|(key, _)| key);
    for key in nullable {
        let mut spec = base.clone();
        spec[key] = Value::Null;
        Spec::parse(&spec.to_string()).unwrap_or_else(|e| panic!("{key:?}: null: {e}"));
    }
}

#[test]
fn every_ready_line_follows_the_field_table() {
    for id in servers() {
        let (server, ready) = serve(id, Stdio::piped());
        assert_eq!(violations("ready", &ready), Vec::<String>::new(), "{id}: {ready}");
        stop(server);
    }
}

/// Four shapes of result from the binary: a clean closed loop (no uncorrected histogram), an
/// open loop (one), a server that is down (error counts, no samples), and clients sharing one
/// pooled connection (its figures).
#[test]
fn drive_results_follow_the_field_table() {
    let (server, ready) = serve("grpc-tonic", Stdio::piped());
    let addr = SocketAddr::from(([127, 0, 0, 1], ready["port"].as_u64().unwrap() as u16));
    let closed = invert_spec("grpc-tonic", addr, 50, 2);
    let mut open = closed.clone();
    open["rate_per_s"] = json!(2000.0);
    let down = invert_spec("grpc-tonic", dead_address(), 5, 1);
    let mut shared = invert_spec("rest-axum", addr, 50, 4);
    shared["connections"] = json!(1);
    let (axum, axum_ready) = serve("rest-axum", Stdio::piped());
    shared["target"] = json!(format!("127.0.0.1:{}", axum_ready["port"]));
    let shapes = [("closed loop", closed), ("open loop", open), ("server down", down), ("shared connections", shared)];
    let [closed, open, down, shared] = shapes.map(|(what, spec)| {
        let out = drive(&spec.to_string());
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let result: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: one JSON result: {e}"));
        assert_eq!(violations("drive_result", &result), Vec::<String>::new(), "{what}: {result}");
        result
    });
    stop(server);
    stop(axum);
    assert_eq!((closed["calls"].as_u64(), &closed["histogram_uncorrected"]), (Some(50), &Value::Null));
    assert_eq!((shared["connections"].as_u64(), shared["inflight_max"].as_u64()), (Some(1), Some(1)), "{shared}");
    assert!(shared["histogram_conn_wait"].is_string() && closed.get("connections").is_none(), "{shared}");
    assert!(open["histogram_uncorrected"].is_string(), "{open}");
    assert_eq!((down["errors"]["connection"].as_u64(), down["samples"].as_array().map(Vec::len)), (Some(5), Some(0)));
}

/// The validator passes the golden documents and names each kind of breach, so the checks above
/// can fail.
#[test]
fn the_validator_passes_the_golden_documents_and_names_each_breach() {
    assert_follows("drive_result", &golden("result.json"));
    assert_follows("ready", &golden("ready.json"));
    for (name, text) in golden_specs() {
        assert_eq!(violations("drive_spec", &serde_json::from_str(&text).unwrap()), Vec::<String>::new(), "{name}");
    }
    // (key, new value or None to drop the key, the breach named, or "" for none)
    let cases: [(&str, Option<Value>, &str); 10] = [
        ("calls", None, "required key \"calls\" is missing"),
        ("late_calls", None, ""),
        ("latency_ms", Some(json!(1)), "key \"latency_ms\" is not in the drive_result table"),
        ("calls", Some(json!(3.0)), "key \"calls\" must be integer, not number"),
        ("calls", Some(json!(true)), "key \"calls\" must be integer, not boolean"),
        ("wall_s", Some(json!(1)), ""),
        ("wall_s", Some(Value::Null), "key \"wall_s\" must be number, not null"),
        ("histogram_uncorrected", Some(json!("HISTF")), ""),
        ("histogram_uncorrected", Some(json!(5)), "key \"histogram_uncorrected\" must be string, not integer"),
        ("errors", Some(json!([])), "key \"errors\" must be object, not array"),
    ];
    for (key, value, breach) in cases {
        let mut result = golden("result.json");
        let object = result.as_object_mut().unwrap();
        match value.clone() {
            Some(value) => object.insert(key.into(), value),
            None => object.remove(key),
        };
        let expected: Vec<String> = [breach].into_iter().filter(|b| !b.is_empty()).map(String::from).collect();
        assert_eq!(violations("drive_result", &result), expected, "{key} = {value:?}");
    }
    assert_eq!(violations("ready", &json!([1])), ["a ready document must be a JSON object, not array"]);
}
