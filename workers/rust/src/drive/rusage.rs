//! This process's own CPU time (getrusage), for the measured phase's deltas.

#[derive(Clone, Copy, Debug, Default)]
pub struct CpuTimes {
    pub user_s: f64,
    pub sys_s: f64,
}

pub fn cpu_times() -> CpuTimes {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    CpuTimes { user_s: seconds(usage.ru_utime), sys_s: seconds(usage.ru_stime) }
}

impl CpuTimes {
    pub fn since(self, earlier: CpuTimes) -> CpuTimes {
        CpuTimes { user_s: self.user_s - earlier.user_s, sys_s: self.sys_s - earlier.sys_s }
    }
}
