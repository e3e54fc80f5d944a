package drive

import (
	"testing"
	"time"
)

// Every verified call lands in exactly one interval, by its start, and the
// clients' intervals of the same start are added.
func TestIntervalsHoldEveryCallOnceByStart(t *testing.T) {
	began := time.Now()
	tallies := []*tally{newTally(false, time.Second), newTally(false, time.Second)}
	samples := newReservoir(10)
	for c, tl := range tallies {
		tl.series.began = began
		for ms := 0; ms < 2500; ms += 100 + c*150 {
			start := began.Add(time.Duration(ms) * time.Millisecond)
			tl.add(outcome{start: start, end: start.Add(time.Millisecond)}, time.Time{}, samples)
		}
		tl.add(outcome{start: began.Add(1500 * time.Millisecond), kind: "timeout"}, time.Time{}, samples)
		tl.series.close()
	}
	got, err := mergeSeries(tallies)
	if err != nil {
		t.Fatal(err)
	}
	var calls int64
	for _, in := range got {
		calls += in.Calls
	}
	if want := tallies[0].calls + tallies[1].calls; calls != want || len(got) != 3 {
		t.Fatalf("intervals %+v hold %d calls, want %d in 3", got, calls, want)
	}
	if got[0].StartS != 0 || got[1].StartS != 1 || got[2].StartS != 2 || got[1].Errors["timeout"] != 2 {
		t.Fatalf("intervals by start: %+v", got)
	}
	if got[0].Calls != 10+4 || got[2].Calls != 5+2 {
		t.Fatalf("calls per interval: %d, %d", got[0].Calls, got[2].Calls)
	}
}
