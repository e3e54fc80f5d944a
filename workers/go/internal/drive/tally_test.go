package drive

import (
	"testing"
	"time"

	"rpcarena/workers/go/internal/core"
)

func TestReservoirStaysBoundedWithDistinctIndices(t *testing.T) {
	r := newReservoir(10)
	for i := range 10000 {
		r.offer(int64(i))
	}
	seen := map[int64]bool{}
	for _, s := range r.samples {
		if s[0] != s[1] || seen[s[0]] || s[0] >= 10000 {
			t.Fatalf("bad sample %v", s)
		}
		seen[s[0]] = true
	}
	if len(r.samples) != 10 || r.seen != 10000 {
		t.Errorf("%d samples of %d", len(r.samples), r.seen)
	}
}

// Open loop: latency runs from the intended start; a late send is counted.
func TestTallyOpenLoopMeasuresFromIntendedStart(t *testing.T) {
	due := time.Unix(0, 0)
	start, end := due.Add(5*time.Millisecond), due.Add(6*time.Millisecond)
	tl := newTally(true, time.Second)
	tl.add(outcome{start: start, end: end}, due, newReservoir(1))
	tl.add(outcome{start: start, end: end, kind: core.KindTimeout}, due, newReservoir(1))
	if tl.calls != 1 || tl.late != 2 || tl.errors[core.KindTimeout] != 1 {
		t.Fatalf("calls %d late %d errors %v", tl.calls, tl.late, tl.errors)
	}
	if got := tl.hist.Max(); got < 5_990_000 || got > 6_010_000 {
		t.Errorf("corrected latency %d ns, want 6 ms", got)
	}
	if got := tl.uncorrected.Max(); got < 999_000 || got > 1_001_000 {
		t.Errorf("uncorrected latency %d ns, want 1 ms", got)
	}
	if got := tl.lag.Max(); tl.lag.TotalCount() != 1 || got < 4_990_000 || got > 5_010_000 {
		t.Errorf("schedule lag %d ns over %d calls, want 5 ms over 1", got, tl.lag.TotalCount())
	}
}
