//! Generates the gRPC servers and prost types from the canonical `proto/arena.proto` and the
//! predictions seed's `proto/predictions.proto`, and records the versions the result document's
//! `tool` field reports.
//!
//! The LargeData messages (up to 8192 int32 fields) are mapped to one hand-written const-generic
//! type (`src/proto/large_data.rs`) instead of derived structs, which keeps compile time flat.
//!
//! With `RPCARENA_USER_SCHEMA` set to a descriptor set (a per-schema variant, `schema_build` in
//! worker.json), it also generates that schema's messages as Rust users write them (prost-build,
//! and pbjson-build's serde impls for proto JSON) and their dispatch table (`user_schema`).
//!
//! With Cap'n Proto's compiler on PATH it compiles `capnp/arena.capnp` for capnp-rust
//! (`capnp_schema`); without it the worker builds without that contender.

#[path = "build/user_schema.rs"]
mod user_schema;

#[path = "build/capnp_schema.rs"]
mod capnp_schema;

use std::{env, fs, path::Path, process::Command};

const PROTOS: [&str; 2] = ["../../proto/arena.proto", "../../proto/predictions.proto"];
const LARGE_SIZES: [usize; 7] = [128, 256, 512, 1024, 2048, 4096, 8192];
const REPORTED_CRATES: [&str; 7] = ["tonic", "warp", "axum", "hyper", "tokio", "prost", "httparse"];

fn main() {
    compile_proto();
    user_schema::generate();
    capnp_schema::generate();
    record_versions();
}

fn compile_proto() {
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
    // Safety of set_var is not a concern here: build scripts are single-threaded.
    env::set_var("PROTOC", protoc);
    let mut builder = tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .type_attribute(".arena", "#[derive(serde::Serialize, serde::Deserialize)]")
        .type_attribute(".arena", "#[serde(default)]")
        .type_attribute(".predictions", "#[derive(serde::Serialize, serde::Deserialize)]")
        .type_attribute(".predictions", "#[serde(default)]")
        .field_attribute(".arena.Int64Msg.value", "#[serde(deserialize_with = \"crate::proto::json::int64\")]")
        .field_attribute(".arena.Item.id", "#[serde(deserialize_with = \"crate::proto::json::int64\")]")
        .field_attribute(".arena.VectorPair.a", "#[serde(skip_serializing_if = \"Option::is_none\")]")
        .field_attribute(".arena.VectorPair.b", "#[serde(skip_serializing_if = \"Option::is_none\")]");
    for n in LARGE_SIZES {
        let name = format!("LargeData{n}");
        builder = builder.extern_path(format!(".arena.{name}"), format!("crate::proto::large_data::{name}"));
    }
    builder.compile_protos(&PROTOS, &["../../proto"]).expect("compile proto/arena.proto and proto/predictions.proto");
    for proto in PROTOS {
        println!("cargo:rerun-if-changed={proto}");
    }
}

fn record_versions() {
    let lock = fs::read_to_string(Path::new("Cargo.lock")).unwrap_or_default();
    for name in REPORTED_CRATES {
        let version = locked_version(&lock, name).unwrap_or_else(|| "unknown".into());
        println!("cargo:rustc-env=RPCARENA_VERSION_{}={version}", name.to_uppercase());
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).arg("--version").output().ok();
    let version = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    println!("cargo:rustc-env=RPCARENA_RUSTC={version}");
    println!("cargo:rerun-if-changed=Cargo.lock");
}

/// The version of `name` in Cargo.lock (`name = "x"` followed by `version = "y"`).
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let needle = format!("name = \"{name}\"\nversion = \"");
    let start = lock.find(&needle)? + needle.len();
    lock[start..].split('"').next().map(str::to_string)
}
