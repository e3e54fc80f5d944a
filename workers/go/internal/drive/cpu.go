package drive

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// cpuTimes is this process's user and system CPU time in seconds (getrusage).
func cpuTimes() (user, sys float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return timeval(ru.Utime), timeval(ru.Stime)
}

func timeval(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }

// monotonicNs is CLOCK_MONOTONIC, the clock of Python's time.monotonic_ns(), so
// that the orchestrator can line up several driver processes.
func monotonicNs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
