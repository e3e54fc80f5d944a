//! A handler's own cost: `--server-work` of the handler thread's CPU, then `--server-wait` asleep.
//!
//! As src/rpcarena/userschema/work.py and the Go worker spend it: a loop runs until the thread's
//! own CPU clock (CLOCK_THREAD_CPUTIME_ID) has advanced by the asked microseconds, so it is CPU,
//! not wall time a preempted server would stretch; in chunks calibrated at start (`CHUNK_US` of
//! CPU, or a twentieth of the work if less), so the clock is read a few dozen times a call. The
//! wait is a tokio sleep: it holds no thread and no CPU, as a database call's await does.

use std::hint::black_box;
use std::time::Duration;

const CALIBRATION_ROUNDS: usize = 5;
const CALIBRATION_LOOPS: u64 = 200_000;
const CHUNK_US: f64 = 10.0;

/// What a handler spends before it answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    work_ns: u64,
    chunk: u64,
    wait: Duration,
}

fn spin(loops: u64) {
    let mut total = 0u64;
    for i in 0..loops {
        total = total.wrapping_add(black_box(i) * i % 7);
    }
    black_box(total);
}

/// The calling thread's own CPU time in ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How many spin loops this thread runs in a microsecond of its CPU (the best of a few rounds).
fn loops_per_us() -> f64 {
    let best = (0..CALIBRATION_ROUNDS)
        .map(|_| {
            let start = thread_cpu_ns();
            spin(CALIBRATION_LOOPS);
            thread_cpu_ns() - start
        })
        .min()
        .unwrap_or(1);
    CALIBRATION_LOOPS as f64 / (best as f64 / 1000.0).max(1e-3)
}

impl Cost {
    /// The cost of `work_us` of CPU and `wait_us` of waiting, calibrated now, and the line the
    /// server logs of it (the Python and Go servers' words).
    pub fn calibrated(work_us: f64, wait_us: f64) -> (Cost, String) {
        let wait = Duration::from_nanos((wait_us * 1000.0) as u64);
        if work_us == 0.0 && wait_us == 0.0 {
            return (Cost { work_ns: 0, chunk: 0, wait }, "no server work or wait".into());
        }
        let rate = if work_us > 0.0 { loops_per_us() } else { 0.0 };
        let chunk = ((CHUNK_US.min(work_us / 20.0) * rate).round() as u64).max(1);
        let line = format!("server work {work_us}us of thread CPU, in chunks of {chunk} loops ({rate:.1} loops/us), wait {wait_us}us");
        (Cost { work_ns: (work_us * 1000.0) as u64, chunk, wait }, line)
    }

    /// Spends the work on this thread's CPU, then sleeps the wait.
    pub async fn spend(&self) {
        self.work();
        if !self.wait.is_zero() {
            tokio::time::sleep(self.wait).await;
        }
    }

    fn work(&self) {
        if self.work_ns > 0 {
            let start = thread_cpu_ns();
            while thread_cpu_ns() - start < self.work_ns {
                spin(self.chunk);
            }
        }
    }
}

/// What `rpcarena-worker calibrate` prints: a handler's work run alone, `calls` times, and the
/// CPU its thread spent on them (benchmarks/server_work.py checks each language's against the asked).
#[derive(Debug, serde::Serialize)]
pub struct Calibration {
    pub asked_us: f64,
    pub calls: u64,
    pub thread_cpu_ns: u64,
    pub calibration: String,
}

pub fn calibrate(work_us: f64, calls: u64) -> Calibration {
    let (cost, calibration) = Cost::calibrated(work_us, 0.0);
    let start = thread_cpu_ns();
    (0..calls).for_each(|_| cost.work());
    Calibration { asked_us: work_us, calls, thread_cpu_ns: thread_cpu_ns() - start, calibration }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_cost_says_so() {
        let (cost, line) = Cost::calibrated(0.0, 0.0);
        assert_eq!((cost.work_ns, line.as_str()), (0, "no server work or wait"));
    }

    #[test]
    fn the_work_is_calibrated_and_said() {
        let (cost, line) = Cost::calibrated(50.0, 10.0);
        assert!(line.starts_with("server work 50us of thread CPU, in chunks of ") && line.ends_with("wait 10us"), "{line}");
        assert_eq!((cost.work_ns, cost.wait), (50_000, Duration::from_micros(10)));
        assert!(cost.chunk >= 1);
    }

    #[test]
    fn calibrating_counts_every_call_at_least_at_the_work() {
        let calibration = calibrate(100.0, 20);
        assert_eq!((calibration.asked_us, calibration.calls), (100.0, 20));
        assert!(calibration.thread_cpu_ns >= 20 * 100_000, "{calibration:?}");
    }

    #[tokio::test]
    async fn spending_uses_at_least_the_work_of_thread_cpu() {
        let (cost, _) = Cost::calibrated(200.0, 0.0);
        let start = thread_cpu_ns();
        cost.spend().await;
        assert!(thread_cpu_ns() - start >= 200_000);
    }
}
