//! The command line: parse, run one command, turn errors into one stderr line and an exit code.

use crate::{contenders, drive, runtime, serve, userschema};
use std::io::{self, Write};
use std::process::ExitCode;

const USAGE: &str =
    "usage: rpcarena-worker serve --contender ID --host HOST --port PORT [--redis URL] [--schema served.json] | drive < spec.json | calibrate --server-work-us W [--calls N]";

/// Exit 2: the command or spec cannot run; exit 1: the server failed (e.g. bind).
pub fn main(args: &[String]) -> ExitCode {
    let outcome = match args.first().map(String::as_str) {
        Some("serve") => run_serve(&args[1..]),
        Some("drive") => run_drive(),
        Some("calibrate") => run_calibrate(&args[1..]),
        _ => Err((2, USAGE.to_string())),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("rpcarena-worker: {message}");
            ExitCode::from(code)
        }
    }
}

type Outcome = Result<(), (u8, String)>;

fn run_serve(args: &[String]) -> Outcome {
    let id = flag(args, "--contender").ok_or((2, USAGE.to_string()))?;
    let host = flag(args, "--host").unwrap_or("127.0.0.1");
    let port = flag(args, "--port").unwrap_or("0").parse::<u16>().map_err(|e| (2, format!("bad --port: {e}")))?;
    let contender = contenders::find(id).ok_or_else(|| (2, format!("unknown contender {id:?}; this worker has {}", contenders::ids())))?;
    let redis = flag(args, "--redis").filter(|url| !url.is_empty());
    let schema = flag(args, "--schema").filter(|path| !path.is_empty());
    let rt = runtime::build().map_err(|e| (1, format!("cannot start the runtime: {e}")))?;
    let result = rt.block_on(serve::serve(contender, host, port, redis, schema));
    rt.shutdown_background();
    result.map_err(|e| (1, e.to_string()))
}

fn run_drive() -> Outcome {
    // The first JSON value on stdin only: with `sync` the orchestrator keeps stdin open after it.
    let value = drive::handshake::read_spec(io::stdin().lock()).map_err(|e| (2, e.0))?;
    let (spec, contender) = drive::prepare_value(value).map_err(|e| (2, e.0))?;
    let rt = runtime::build().map_err(|e| (1, format!("cannot start the runtime: {e}")))?;
    let result = rt.block_on(drive::drive(&spec, contender)).map_err(|e| (2, e.0))?;
    rt.shutdown_background();
    let json = serde_json::to_string(&result).map_err(|e| (1, e.to_string()))?;
    writeln!(io::stdout().lock(), "{json}").map_err(|e| (1, e.to_string()))
}

/// A handler's --server-work run alone, as a server runs it, and the CPU its thread spent.
fn run_calibrate(args: &[String]) -> Outcome {
    let usage = || (2, format!("calibrate: give --server-work-us above 0 and --calls of 1 or more; {USAGE}"));
    let work_us = flag(args, "--server-work-us").and_then(|w| w.parse::<f64>().ok()).filter(|w| *w > 0.0).ok_or_else(usage)?;
    let calls = flag(args, "--calls").map_or(Some(1000), |c| c.parse::<u64>().ok()).filter(|c| *c >= 1).ok_or_else(usage)?;
    let json = serde_json::to_string(&userschema::work::calibrate(work_us, calls)).map_err(|e| (1, e.to_string()))?;
    writeln!(io::stdout().lock(), "{json}").map_err(|e| (1, e.to_string()))
}

/// The value after `name` in `args`.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(String::as_str)
}
