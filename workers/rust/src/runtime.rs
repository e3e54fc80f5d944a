//! How many runtime threads a process uses, and the tokio runtime built from that.
//!
//! One worker thread per CPU the process may run on (its affinity mask), and a current-thread
//! runtime when that is one CPU. On this kind of VM a wake-up that crosses vCPUs costs ~80 µs,
//! so a process pinned to one CPU (`taskset -c N`, as the orchestrator does) must not have two
//! threads handing work to each other; an unpinned process still uses every core.
//! `RPCARENA_RUST_THREADS` overrides the count.

use std::io;
use tokio::runtime::{Builder, Runtime, RuntimeFlavor};

pub const THREADS_ENV: &str = "RPCARENA_RUST_THREADS";

pub fn thread_count() -> usize {
    let from_env = std::env::var(THREADS_ENV).ok().and_then(|v| v.parse::<usize>().ok());
    from_env.filter(|n| *n > 0).unwrap_or_else(allowed_cpus)
}

/// CPUs in this process's affinity mask (what `taskset` sets).
fn allowed_cpus() -> usize {
    // SAFETY: sched_getaffinity fills the zeroed cpu_set_t we own.
    let count = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        match libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) {
            0 => libc::CPU_COUNT(&set) as usize,
            _ => 0,
        }
    };
    if count > 0 {
        count
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

pub fn build() -> io::Result<Runtime> {
    match thread_count() {
        1 => Builder::new_current_thread().enable_all().build(),
        n => Builder::new_multi_thread().worker_threads(n).enable_all().build(),
    }
}

/// e.g. "rustc 1.95.0 (...); tokio 1.47.1 current_thread" for the result's `tool.runtime`.
pub fn describe_current() -> String {
    let flavor = match tokio::runtime::Handle::try_current().map(|h| (h.runtime_flavor(), h.metrics().num_workers())) {
        Ok((RuntimeFlavor::CurrentThread, _)) => "current_thread".to_string(),
        Ok((_, workers)) => format!("multi_thread x{workers}"),
        Err(_) => "none".to_string(),
    };
    format!("{}; tokio {} {flavor}", env!("RPCARENA_RUSTC"), env!("RPCARENA_VERSION_TOKIO"))
}
