package drive

import (
	"time"

	"rpcarena/workers/go/internal/core"
)

// result merges the clients' tallies into the contract's result document.
func (r *run) result() (core.Result, error) {
	total := newTally(r.spec.RatePerS != nil)
	for _, t := range r.tallies {
		total.merge(t)
	}
	for _, kind := range core.BaseKinds {
		total.errors[kind] += 0
	}
	res := core.Result{
		Contract: core.ContractVersion, Calls: total.calls, Errors: total.errors,
		ErrorExamples: total.examples, WallS: r.wall().Seconds(),
		StartMonoNs: r.beganNs, EndMonoNs: r.beganNs + int64(r.wall()),
		CPUUserS: r.cpu[0], CPUSysS: r.cpu[1],
		Samples: r.samples.samples, LateCalls: total.late,
	}
	var err error
	if res.Histogram, err = encode(total.hist); err != nil || total.uncorrected == nil {
		return res, err
	}
	uncorrected, err := encode(total.uncorrected)
	res.HistogramUncorrected = &uncorrected
	return res, err
}

// wall runs from the barrier's release to the end of the last client.
func (r *run) wall() time.Duration {
	last := r.began
	for _, end := range r.ends {
		if end.After(last) {
			last = end
		}
	}
	return last.Sub(r.began)
}
