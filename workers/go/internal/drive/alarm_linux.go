package drive

import (
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// alarm wakes one client when its next call is due. time.Sleep cannot: the
// runtime's timers wait in the netpoller's epoll_wait, whose timeout is whole
// milliseconds, so a sleep overshoots by up to ~1 ms, and spinning with
// runtime.Gosched keeps the netpoller from seeing replies. A timerfd is a file
// the netpoller watches like a socket, so the client parks and wakes when the
// kernel's high-resolution timer fires, while the other clients' replies are
// read as usual.
//
// The timer fires on time, but the client runs 20-35 us later: the kernel's
// wake-up of an idle (virtual) CPU, then the scheduler's. So the timer is set
// that much early (lead, learnt from the wake-ups seen) and the rest is spun.
// The spin yields (runtime.Gosched) and lasts about the wake-up's jitter, a
// few microseconds, where a fixed spin would take more CPU at high rates.
type alarm struct {
	fd   int
	file *os.File      // nil when no timerfd could be made: time.Sleep then
	late time.Duration // the mean wake-up lateness so far (a moving average)
}

// maxLead caps how early the timer is set: a wake-up later than this is the
// CPU being busy, which no spin would hide.
const maxLead = 60 * time.Microsecond

func newAlarm() *alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &alarm{fd: -1}
	}
	return &alarm{fd: fd, file: os.NewFile(uintptr(fd), "timerfd")}
}

// waitUntil returns when due has come (at once if it has passed).
func (a *alarm) waitUntil(due time.Time) {
	wake := due.Add(-a.lead())
	if d := time.Until(wake); d > 0 {
		a.sleep(d)
		a.learn(time.Since(wake))
	}
	for time.Now().Before(due) {
		runtime.Gosched()
	}
}

// lead is how early the timer is set: 1.5 times the mean wake-up lateness.
func (a *alarm) lead() time.Duration {
	return min(a.late*3/2, maxLead)
}

// learn folds one wake-up's lateness into the mean (weight 1/8).
func (a *alarm) learn(late time.Duration) {
	a.late += (min(late, maxLead) - a.late) / 8
}

// sleep parks the goroutine for d on the timerfd (time.Sleep without one).
func (a *alarm) sleep(d time.Duration) {
	if a.file == nil {
		time.Sleep(d)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(a.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	var expirations [8]byte
	if _, err := a.file.Read(expirations[:]); err != nil {
		time.Sleep(d)
	}
}

func (a *alarm) close() {
	if a.file != nil {
		a.file.Close()
	}
}
