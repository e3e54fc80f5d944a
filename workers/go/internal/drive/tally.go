package drive

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range of the contract, in nanoseconds.
const (
	lowestNs  = 1
	highestNs = 60_000_000_000
	sigFigs   = 3
	lateAfter = time.Millisecond
)

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(lowestNs, highestNs, sigFigs) }

// tally is what one client measured; clients merge theirs at the end, so the
// hot path takes no lock except the shared reservoir's.
type tally struct {
	hist        *hdrhistogram.Histogram
	uncorrected *hdrhistogram.Histogram // open loop only: sent -> done
	lag         *hdrhistogram.Histogram // open loop only: due -> sent, the driver's own lateness
	messages    *hdrhistogram.Histogram // streams: each reply message, created at the first
	errors      map[string]int64
	examples    map[string]string // the first error of each kind, shortened
	calls, late int64
	series      *series
}

const exampleLen = 200

func newTally(openLoop bool, every time.Duration) *tally {
	t := &tally{hist: newHistogram(), errors: map[string]int64{}, examples: map[string]string{}}
	if every > 0 {
		t.series = newSeries(every)
	}
	if openLoop {
		t.uncorrected, t.lag = newHistogram(), newHistogram()
	}
	return t
}

// inSeries opens the interval of a call (by its due time in open loop) and
// counts its error there; a stage's tally keeps no series.
func (t *tally) inSeries(o outcome, due time.Time) {
	if t.series == nil {
		return
	}
	if due.IsZero() {
		t.series.at(o.start)
	} else {
		t.series.at(due)
	}
	if o.kind != "" {
		t.series.errors[o.kind]++
	}
}

// add records one call; due is zero in closed loop. A failed call is counted by
// kind, never as a latency; samples may be nil (a stage's tally keeps none).
func (t *tally) add(o outcome, due time.Time, samples *reservoir) {
	latency := o.end.Sub(o.start)
	if !due.IsZero() && o.start.Sub(due) > lateAfter {
		t.late++
	}
	t.inSeries(o, due)
	if o.kind != "" {
		t.errors[o.kind]++
		if _, ok := t.examples[o.kind]; !ok && o.err != nil {
			t.examples[o.kind] = shorten(o.err.Error())
		}
		return
	}
	t.calls++
	if !due.IsZero() {
		t.uncorrected.RecordValue(clamp(latency))
		t.lag.RecordValue(max(int64(o.start.Sub(due)), 0))
		latency = o.end.Sub(due) // from the intended start (wrk2): a stall shows
	}
	t.hist.RecordValue(clamp(latency))
	if t.series != nil {
		t.series.hist.RecordValue(clamp(latency))
	}
	if samples != nil {
		samples.offer(clamp(latency))
	}
	t.addMessages(o.messages)
}

func (t *tally) addMessages(latencies []time.Duration) {
	if latencies == nil {
		return
	}
	if t.messages == nil {
		t.messages = newHistogram()
	}
	for _, d := range latencies {
		t.messages.RecordValue(clamp(d))
	}
}

func clamp(d time.Duration) int64 { return min(max(int64(d), lowestNs), highestNs) }

func (t *tally) merge(o *tally) {
	t.hist.Merge(o.hist)
	if t.uncorrected != nil {
		t.uncorrected.Merge(o.uncorrected)
		t.lag.Merge(o.lag)
	}
	if o.messages != nil {
		if t.messages == nil {
			t.messages = newHistogram()
		}
		t.messages.Merge(o.messages)
	}
	for kind, n := range o.errors {
		t.errors[kind] += n
	}
	for kind, text := range o.examples {
		if _, ok := t.examples[kind]; !ok {
			t.examples[kind] = text
		}
	}
	t.calls += o.calls
	t.late += o.late
}

func shorten(s string) string {
	if r := []rune(s); len(r) > exampleLen {
		return string(r[:exampleLen])
	}
	return s
}

func encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}
