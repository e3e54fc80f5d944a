package nfq

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// monoClock reads CLOCK_MONOTONIC, the clock of the release timer, as nanoseconds,
// through Go's own monotonic clock (the same clock, read without a system call).
type monoClock struct {
	base     time.Time
	baseMono int64
}

func newMonoClock() monoClock {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) // cannot fail for this clock
	return monoClock{base: time.Now(), baseMono: ts.Nano()}
}

func (c monoClock) now() int64 { return c.baseMono + int64(time.Since(c.base)) }

// releaseTimer is a one-shot timerfd armed at an absolute CLOCK_MONOTONIC time.
// timerfd expiries are hrtimers without timer slack, and the fd sits in Go's netpoller,
// so a wake-up is late by the scheduler's latency only (microseconds), not by the
// millisecond that Go's own timers round a sleep to, and no thread blocks on it.
type releaseTimer struct {
	fd       int
	file     *os.File
	armedFor int64 // the expiry last set, 0 once it has been taken; guarded by the lane's mutex
}

func newReleaseTimer() (*releaseTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return &releaseTimer{fd: fd, file: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// arm sets the next expiry (any time at or before now fires at once), replacing the last.
func (t *releaseTimer) arm(at int64) {
	t.armedFor = max(at, 1)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(t.armedFor)}
	_ = unix.TimerfdSettime(t.fd, unix.TFD_TIMER_ABSTIME, &spec, nil) // only EBADF/EINVAL: not with these arguments
}

// wait blocks until the timer has fired; false once the timer is closed.
func (t *releaseTimer) wait() bool {
	var buf [8]byte
	_, err := t.file.Read(buf[:])
	return err == nil
}

func (t *releaseTimer) close() { t.file.Close() }

// lead is how early the timer is armed: a running median of how late its wake-ups
// come (a stochastic median: each wake-up moves it toward the sample by a quarter of
// the gap, at least 1 µs and at most 16 µs, so one stall cannot drag it), so that
// about half the packets leave a little early and half a little late, not all late.
type lead struct{ ns int64 }

const leadMinStepNs, leadMaxStepNs, leadMaxNs = 1_000, 16_000, 500_000

func (l *lead) observe(lateNs int64) {
	gap := lateNs - l.ns
	step := min(max(abs(gap)/4, leadMinStepNs), leadMaxStepNs)
	if gap > 0 {
		l.ns = min(l.ns+step, leadMaxNs)
	} else {
		l.ns = max(l.ns-step, 0)
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

var rxStamps struct {
	once sync.Once
	fd   int
	err  error
}

// enableRxTimestamps keeps a socket open with SO_TIMESTAMPNS, which turns on the
// kernel's stamping of every received packet (a global switch that ping also flips
// while it runs); queued packets then carry the time they reached the router.
func enableRxTimestamps() error {
	rxStamps.once.Do(func() {
		rxStamps.fd, rxStamps.err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if rxStamps.err == nil {
			rxStamps.err = unix.SetsockoptInt(rxStamps.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		}
	})
	return rxStamps.err
}
