// Package drive runs the measured phase of the contract's `drive` against any
// contender's client: warm-up, barrier, closed or open loop, and the result.
package drive

import (
	"sync"
	"time"

	"rpcarena/workers/go/internal/core"
)

// Run drives one spec with a prepared client. atBarrier, if not nil, runs when
// every client has warmed up, before the barrier opens (the contract's sync
// handshake). Failed calls are counted in the result; an error means only that
// the result could not be encoded.
func Run(spec *core.Spec, client core.Client, atBarrier func()) (core.Result, error) {
	r := newRun(spec, client)
	r.start(atBarrier)
	return r.result()
}

type run struct {
	spec     *core.Spec
	sessions []*session
	shared   *pool // the spec's connections; nil: each client its own
	tallies  []*tally
	staged   [][]*tally // staged open loop: per client, a tally per stage
	ends     []time.Duration
	lastEnds []time.Time
	samples  *reservoir
	pacing   plan // set before release is closed, read after
	release  chan struct{}
	ready    sync.WaitGroup
	done     sync.WaitGroup
	began    time.Time
	beganNs  int64      // CLOCK_MONOTONIC at began, comparable across processes
	cpu      [2]float64 // user, sys during the measured phase
}

func newRun(spec *core.Spec, client core.Client) *run {
	r := &run{spec: spec, samples: newReservoir(*spec.SampleLimit), release: make(chan struct{}),
		lastEnds: make([]time.Time, spec.Clients), ends: stageEnds(spec.Stages)}
	if spec.Connections != nil {
		r.shared = newPool(client, *spec.Connections, spec.Timeout())
	}
	for i := range spec.Clients {
		r.sessions = append(r.sessions, &session{id: i, client: client, timeout: spec.Timeout(), pool: r.shared,
			wait: newHistogram()})
		r.tallies = append(r.tallies, newTally(spec.RatePerS != nil, spec.Interval()))
		r.staged = append(r.staged, stageTallies(len(spec.Stages)))
	}
	return r
}

// start runs every client to the end: warm-up, barrier, measured phase.
func (r *run) start(atBarrier func()) {
	warmEnd := time.Now().Add(r.spec.Warmup())
	r.ready.Add(len(r.sessions))
	r.done.Add(len(r.sessions))
	for i, s := range r.sessions {
		go r.client(i, s, warmEnd)
	}
	r.ready.Wait()
	if atBarrier != nil {
		atBarrier()
	}
	user0, sys0 := cpuTimes()
	r.began, r.beganNs = time.Now(), monotonicNs()
	r.pacing = r.newPlan(r.began)
	if r.shared != nil {
		r.shared.gauge.reset() // every client waits at the barrier: none is in flight
	}
	close(r.release)
	r.done.Wait()
	user1, sys1 := cpuTimes()
	r.cpu = [2]float64{user1 - user0, sys1 - sys0}
	for _, s := range r.sessions {
		s.close()
	}
	if r.shared != nil {
		r.shared.close()
	}
}

func (r *run) client(i int, s *session, warmEnd time.Time) {
	defer r.done.Done()
	if s.pool == nil {
		s.connect() // a failure here is retried, and counted, by the first call
	}
	for time.Now().Before(warmEnd) {
		s.call()
	}
	r.ready.Done()
	<-r.release
	s.wait.Reset() // the warm-up's waits are not the measured phase's
	r.tallies[i].series.began = r.began
	wake := newAlarm()
	defer wake.close()
	for {
		due, ok := r.pacing.next(i)
		if !ok {
			break
		}
		if !due.IsZero() {
			wake.waitUntil(due) // open loop: wait for the call's intended start
		}
		o := s.call()
		r.tallies[i].add(o, due, r.samples)
		if len(r.ends) > 0 {
			r.staged[i][stageOf(r.ends, due.Sub(r.began))].add(o, due, nil)
		}
	}
	r.tallies[i].series.close()
	r.lastEnds[i] = time.Now()
}

func (r *run) newPlan(start time.Time) plan {
	spec := r.spec
	if spec.RatePerS == nil {
		return newQuota(spec.Clients, spec.Calls, start.Add(spec.Duration()))
	}
	pacer := newPacer(*spec.RatePerS, spec.Arrival)
	if len(spec.Stages) > 0 {
		pacer = NewStagedPacer(spec.Stages, spec.Arrival)
	}
	shift := spec.ScheduleOffset() // calls due from start+shift, none at or after start+duration
	return newSchedule(pacer, start.Add(shift), spec.Calls, spec.Duration()-shift)
}

func stageTallies(n int) []*tally {
	tallies := make([]*tally, n)
	for k := range tallies {
		tallies[k] = newTally(true, 0) // a stage's figures are the phase's: no series of its own
	}
	return tallies
}
