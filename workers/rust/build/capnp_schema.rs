//! Compiles `capnp/arena.capnp` with the `capnp` tool (Debian's capnproto) through capnpc into
//! OUT_DIR/arena_capnp.rs for the capnp-rust contender (`src/contenders/capnp_rpc`), and then sets
//! the `rpcarena_capnp` cfg that builds it.
//!
//! Without the tool the worker builds all the same, capnp-rust left out: its entry in worker.json
//! `requires` capnp, so rpcarena lists it unavailable with the command that installs it. The tool
//! is looked up here, at each run of this script; rpcarena's build passes the entries' missing tools
//! in `RPCARENA_MISSING_TOOLS`, so a tool installed since the last build runs this script again.

use std::{env, path::PathBuf, process::Command};

const SCHEMA: &str = "capnp/arena.capnp";
const CFG: &str = "rpcarena_capnp";

pub fn generate() {
    println!("cargo::rustc-check-cfg=cfg({CFG})");
    println!("cargo:rerun-if-changed={SCHEMA}");
    println!("cargo:rerun-if-env-changed=RPCARENA_MISSING_TOOLS");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let version = super::locked_version(&lock, "capnp-rpc").unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RPCARENA_VERSION_CAPNP_RPC={version}");
    if !tool_found() {
        println!("cargo:warning=capnp-rust left out: no capnp on PATH (apt-get install capnproto)");
        return;
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    capnpc::CompilerCommand::new()
        .src_prefix("capnp")
        .file(SCHEMA)
        .output_path(&out)
        .default_parent_module(vec!["contenders".into(), "capnp_rpc".into()])
        .run()
        .expect("capnp compile capnp/arena.capnp");
    println!("cargo:rustc-cfg={CFG}");
}

/// Whether Cap'n Proto's compiler runs here.
fn tool_found() -> bool {
    Command::new("capnp").arg("--version").output().is_ok_and(|out| out.status.success())
}
