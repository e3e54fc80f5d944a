package drive

import (
	"sync"
	"time"
)

// plan paces the measured phase: next says whether a client makes another call
// and, in open loop, when that call was due (zero in closed loop: due now).
type plan interface {
	next(client int) (due time.Time, ok bool)
}

// quota is the closed loop: each client's share of calls, or a deadline.
type quota struct {
	left     []int64 // per client; nil when the phase runs for a duration
	deadline time.Time
}

// newQuota splits calls evenly; the first calls % clients clients do one more.
func newQuota(clients int, calls *int64, deadline time.Time) *quota {
	q := &quota{deadline: deadline}
	if calls != nil {
		q.left = make([]int64, clients)
		for i := range q.left {
			q.left[i] = *calls / int64(clients)
			if int64(i) < *calls%int64(clients) {
				q.left[i]++
			}
		}
	}
	return q
}

func (q *quota) next(client int) (time.Time, bool) {
	if q.left == nil {
		return time.Time{}, time.Now().Before(q.deadline)
	}
	if q.left[client] == 0 { // each client touches only its own slot: no lock
		return time.Time{}, false
	}
	q.left[client]--
	return time.Time{}, true
}

// schedule is the open loop: arrivals over all clients together, each taken by
// whichever client is free, so a stalled server delays calls past their due time.
type schedule struct {
	mu    sync.Mutex
	start time.Time
	pacer Pacer
	left  int64         // calls still to start; -1 when the phase runs for a duration
	span  time.Duration // the duration, when left is -1
}

func newSchedule(pacer Pacer, start time.Time, calls *int64, span time.Duration) *schedule {
	s := &schedule{start: start, pacer: pacer, left: -1, span: span}
	if calls != nil {
		s.left = *calls
	}
	return s
}

func (s *schedule) next(int) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == 0 {
		return time.Time{}, false
	}
	offset := s.pacer.Next()
	if s.left < 0 && offset >= s.span {
		return time.Time{}, false
	}
	if s.left > 0 {
		s.left--
	}
	return s.start.Add(offset), true
}
