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
// But the netpoller is polled only when its P has nothing else to run: while
// the driver's one P runs other clients' goroutines (reading replies), the
// timerfd's wake-up waits for the run queue to empty. A runtime timer is
// checked at every goroutine switch and puts the goroutine it wakes next in
// line, but when the P is idle it waits in that millisecond epoll_wait. So the
// alarm sets both, and whichever comes first wakes the client: the timerfd on
// an idle P, the runtime timer on a busy one.
//
// The timer fires on time, but the client runs 20-35 us later: the kernel's
// wake-up of an idle (virtual) CPU, then the scheduler's. So the timer is set
// that much early (lead, learnt from the wake-ups seen) and the rest is spun.
// The spin yields (runtime.Gosched) and lasts about the wake-up's jitter, a
// few microseconds, where a fixed spin would take more CPU at high rates.
type alarm struct {
	fd    int
	file  *os.File      // nil when no timerfd could be made: the runtime timer alone then
	fired chan struct{} // the timerfd's expirations, as its reader goroutine sees them
	timer *time.Timer
	late  time.Duration // the mean wake-up lateness so far (a moving average)
}

// maxLead caps how early the timer is set: a wake-up later than this is the
// CPU being busy, which no spin would hide.
const maxLead = 60 * time.Microsecond

func newAlarm() *alarm {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	a := &alarm{fd: -1, fired: make(chan struct{}, 1), timer: timer}
	if fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err == nil {
		a.fd, a.file = fd, os.NewFile(uintptr(fd), "timerfd")
		go a.read(a.file)
	}
	return a
}

// read passes each expiration of the timerfd on, until the file is closed.
func (a *alarm) read(file *os.File) {
	var expirations [8]byte
	for {
		if _, err := file.Read(expirations[:]); err != nil {
			return
		}
		select {
		case a.fired <- struct{}{}:
		default: // one is waiting already
		}
	}
}

// waitUntil returns when due has come (at once if it has passed).
func (a *alarm) waitUntil(due time.Time) {
	wake := due.Add(-a.lead())
	if time.Until(wake) > 0 {
		a.sleep(wake)
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

// sleep parks the goroutine until wake, on the runtime timer and the timerfd.
// An expiration left from an earlier sleep (the timerfd fired just after the
// runtime timer woke the client) only wakes it to park again.
func (a *alarm) sleep(wake time.Time) {
	d := time.Until(wake)
	if a.file != nil {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
		if unix.TimerfdSettime(a.fd, 0, &spec, nil) != nil {
			a.file.Close() // the runtime timer alone from now on
			a.file = nil
		}
	}
	a.timer.Reset(d)
	for time.Now().Before(wake) {
		select {
		case <-a.timer.C:
			a.timer.Reset(time.Until(wake)) // early by a rounding: wait for the rest
		case <-a.fired:
		}
	}
	a.timer.Stop()
}

func (a *alarm) close() {
	if a.file != nil {
		a.file.Close()
	}
}
