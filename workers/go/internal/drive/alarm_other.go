//go:build !linux

package drive

import "time"

// alarm is time.Sleep where there is no timerfd (see alarm_linux.go).
type alarm struct{}

func newAlarm() *alarm { return &alarm{} }

func (*alarm) waitUntil(due time.Time) { time.Sleep(time.Until(due)) }

func (*alarm) close() {}
