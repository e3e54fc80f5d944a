//! `rpcarena-worker serve ...` / `rpcarena-worker drive < spec.json` (worker contract v1).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    rpcarena_worker::cli::main(&args)
}
