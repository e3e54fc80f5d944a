//! Wakes one open-loop client when its next call is due, without spinning its CPU away between calls.
//!
//! tokio's timer has whole-millisecond granularity, so a `sleep_until` alone would make many
//! calls up to 1 ms late; sleeping to 1.5 ms before each call and yielding until it kept the
//! driver's CPU 80-99% busy at every rate. A timerfd is a file the runtime's reactor watches like
//! a socket: the client parks on it and the kernel's high-resolution timer wakes it, while the
//! other clients' replies are read as usual. The timer is set SPIN before the call and the rest is
//! spun, yielding to the other clients: the spin absorbs the wake-up's lateness (20-35 us on an idle
//! virtual CPU, more on a busy one) and keeps the reactor polled as the call goes out. A learnt lead
//! of at most 60 us, as the Go and Java drivers use, made calls late at 30% of capacity (schedule
//! lag p50 28-53 us against the spin's 1 us); 250 us paces as the 1.5 ms spin did, with the
//! driver's CPU 41-49% busy at 10% of capacity instead of 81-97% (benchmarks/open_loop.py).
//!
//! Where no timerfd can be made, the client sleeps on tokio's timer to within a tick of the call
//! and yields until it.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// How long before a call the timer wakes its client, which then yields until the call is due.
const SPIN: Duration = Duration::from_micros(250);
/// Without a timerfd: the stretch before a call that is yielded through, over a tokio timer tick.
const TICK: Duration = Duration::from_micros(1500);

pub struct Alarm {
    timer: Option<AsyncFd<OwnedFd>>,
}

impl Default for Alarm {
    /// An alarm on a new timerfd (on tokio's timer alone where none can be made).
    fn default() -> Alarm {
        // SAFETY: timerfd_create takes no pointers; a non-negative result is a new descriptor we own.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        // SAFETY: the OwnedFd is moved into the AsyncFd and stays open, the same descriptor, until
        // the AsyncFd is dropped.
        let timer = (fd >= 0)
            .then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            .and_then(|fd| unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok());
        Alarm { timer }
    }
}

impl Alarm {
    /// Returns when `due` has come (at once if it has passed).
    pub async fn wait_until(&mut self, due: Instant) {
        let now = Instant::now();
        let wake = due.checked_sub(SPIN).unwrap_or(due);
        let woken = wake <= now
            || match &self.timer {
                Some(timer) => sleep(timer, wake - now).await.is_ok(),
                None => false,
            };
        if !woken {
            self.timer = None; // tokio's timer alone from now on
            if due.saturating_duration_since(now) > TICK {
                tokio::time::sleep_until((due - TICK).into()).await;
            }
        }
        while Instant::now() < due {
            tokio::task::yield_now().await;
        }
    }
}

/// Arms `timer` (a timerfd) `after` from now and parks until it expires. Arming it resets any
/// expiration left from before, so only this one wakes the client.
async fn sleep(timer: &AsyncFd<OwnedFd>, after: Duration) -> io::Result<()> {
    let value = libc::timespec { tv_sec: after.as_secs() as libc::time_t, tv_nsec: after.subsec_nanos() as libc::c_long };
    let spec = libc::itimerspec { it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 }, it_value: value };
    // SAFETY: the descriptor is open for as long as `timer` lives; `spec` outlives the call.
    if unsafe { libc::timerfd_settime(timer.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    loop {
        let mut ready = timer.readable().await?;
        let mut expirations = [0u8; 8];
        // SAFETY: reads at most 8 bytes into the 8-byte buffer.
        let read = ready.try_io(|fd| match unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) } {
            n if n < 0 => Err(io::Error::last_os_error()),
            _ => Ok(()),
        });
        match read {
            Ok(result) => return result,
            Err(_would_block) => continue, // readiness left from an earlier expiration, already read
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn never_wakes_a_call_before_it_is_due() {
        let mut alarm = Alarm::default();
        assert!(alarm.timer.is_some(), "a timerfd on Linux");
        let start = Instant::now();
        for k in 1..=20u32 {
            let due = start + Duration::from_micros(400) * k;
            alarm.wait_until(due).await;
            assert!(Instant::now() >= due, "call {k} went out before it was due");
        }
        assert!(alarm.timer.is_some(), "the timerfd is still in use after 20 calls");
        let past = Instant::now() - Duration::from_millis(1);
        alarm.wait_until(past).await; // returns without arming anything
        assert!(alarm.timer.is_some());
    }
}
