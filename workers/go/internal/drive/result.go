package drive

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"rpcarena/workers/go/internal/core"
)

// result merges the clients' tallies into the contract's result document.
func (r *run) result() (core.Result, error) {
	total := newTally(r.spec.RatePerS != nil, r.spec.Interval())
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
	if res.Intervals, err = mergeSeries(r.tallies); err != nil {
		return res, err
	}
	if err = r.withSharing(&res); err != nil {
		return res, err
	}
	if res.Histogram, err = encode(total.hist); err != nil {
		return res, err
	}
	if err = withMessages(&res, total.messages); err != nil || total.uncorrected == nil {
		return res, err
	}
	uncorrected, err := encode(total.uncorrected)
	res.HistogramUncorrected = &uncorrected
	if err != nil {
		return res, err
	}
	lag, err := encode(total.lag)
	res.HistogramScheduleLag = &lag
	if err != nil {
		return res, err
	}
	res.Stages, err = r.stageResults()
	return res, err
}

// stageResults merges each stage's tallies over the clients (nil without stages).
func (r *run) stageResults() ([]core.StageResult, error) {
	var out []core.StageResult
	for k := range r.ends {
		total := newTally(true, 0)
		for _, tallies := range r.staged {
			total.merge(tallies[k])
		}
		stage := core.StageResult{Calls: total.calls}
		var err error
		for _, h := range []struct {
			to  *string
			src *hdrhistogram.Histogram
		}{{&stage.Histogram, total.hist}, {&stage.HistogramUncorrected, total.uncorrected},
			{&stage.HistogramScheduleLag, total.lag}} {
			if *h.to, err = encode(h.src); err != nil {
				return nil, err
			}
		}
		out = append(out, stage)
	}
	return out, nil
}

// wall runs from the barrier's release to the end of the last client.
func (r *run) wall() time.Duration {
	last := r.began
	for _, end := range r.lastEnds {
		if end.After(last) {
			last = end
		}
	}
	return last.Sub(r.began)
}

// withMessages adds the streams' per-message latencies, when there were streams.
func withMessages(res *core.Result, messages *hdrhistogram.Histogram) error {
	if messages == nil {
		return nil
	}
	encoded, err := encode(messages)
	count := messages.TotalCount()
	res.Messages, res.HistogramMessages = &count, &encoded
	return err
}

// withSharing adds what sharing the spec's connections measured (nothing without).
func (r *run) withSharing(res *core.Result) error {
	if r.shared == nil {
		return nil
	}
	n, top, mean := len(r.shared.slots), r.shared.gauge.max.Load(), r.shared.gauge.mean()
	res.Connections, res.InflightMax, res.InflightMean = &n, &top, &mean
	if r.shared.free == nil {
		return nil
	}
	waits := newHistogram()
	for _, s := range r.sessions {
		waits.Merge(s.wait)
	}
	encoded, err := encode(waits)
	res.HistogramConnWait = &encoded
	return err
}
