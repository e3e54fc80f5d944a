package drive

import (
	"os"
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
type alarm struct {
	fd   int
	file *os.File // nil when no timerfd could be made: time.Sleep then
}

func newAlarm() *alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &alarm{fd: -1}
	}
	return &alarm{fd: fd, file: os.NewFile(uintptr(fd), "timerfd")}
}

// waitUntil returns when due has come (at once if it has passed).
func (a *alarm) waitUntil(due time.Time) {
	d := time.Until(due)
	if d <= 0 {
		return
	}
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
		time.Sleep(time.Until(due))
	}
}

func (a *alarm) close() {
	if a.file != nil {
		a.file.Close()
	}
}
