package drive

import (
	"testing"
	"time"

	"rpcarena/workers/go/internal/core"
)

func TestQuotaSplitsCallsEvenlyFirstClientsOneMore(t *testing.T) {
	calls := int64(7)
	q := newQuota(3, &calls, time.Time{})
	for client, want := range []int{3, 2, 2} {
		n := 0
		for _, ok := q.next(client); ok; _, ok = q.next(client) {
			n++
		}
		if n != want {
			t.Errorf("client %d made %d calls, want %d", client, n, want)
		}
	}
}

func TestConstantPacerSpacesEvenly(t *testing.T) {
	p := NewConstantPacer(4)
	for i, want := range []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond} {
		if got := p.Next(); got != want {
			t.Errorf("arrival %d at %v, want %v", i, got, want)
		}
	}
}

// Poisson arrivals: increasing, reproducible from the seed, mean gap 1/rate.
func TestPoissonPacerIsSeededWithMeanGap(t *testing.T) {
	a, b := NewPoissonPacer(1000, 1), NewPoissonPacer(1000, 1)
	var last time.Duration
	const n = 100000
	for i := range n {
		x, y := a.Next(), b.Next()
		if x != y || (i > 0 && x < last) {
			t.Fatalf("arrival %d: %v vs %v after %v", i, x, y, last)
		}
		last = x
	}
	if mean := last.Seconds() / (n - 1); mean < 0.00098 || mean > 0.00102 {
		t.Errorf("mean gap %v s, want about 0.001", mean)
	}
}

func TestScheduleStopsAfterCallsOrSpan(t *testing.T) {
	calls := int64(3)
	start := time.Unix(100, 0)
	byCalls := newSchedule(NewConstantPacer(10), start, &calls, 0)
	for i := range 4 {
		due, ok := byCalls.next(0)
		if ok != (i < 3) || ok && due != start.Add(time.Duration(i)*100*time.Millisecond) {
			t.Errorf("call %d: due %v ok %v", i, due, ok)
		}
	}
	bySpan := newSchedule(NewConstantPacer(10), start, nil, 250*time.Millisecond)
	n := 0
	for _, ok := bySpan.next(0); ok; _, ok = bySpan.next(0) {
		n++
	}
	if n != 3 { // arrivals at 0, 100 and 200 ms
		t.Errorf("%d arrivals in 250 ms at 10/s", n)
	}
}

// Stages: each at its own rate from its own start; the schedule ends with the last.
func TestStagedScheduleKeepsEachStageRate(t *testing.T) {
	stages := []core.Stage{{RatePerS: 10, DurationS: 1}, {RatePerS: 40, DurationS: 0.5}}
	start := time.Unix(0, 0)
	s := newSchedule(NewStagedPacer(stages, core.ArrivalConstant), start, nil, 1500*time.Millisecond)
	ends, counts := stageEnds(stages), []int{0, 0}
	for due, ok := s.next(0); ok; due, ok = s.next(0) {
		counts[stageOf(ends, due.Sub(start))]++
	}
	if counts[0] != 10 || counts[1] != 20 {
		t.Errorf("calls per stage %v, want [10 20]", counts)
	}
}

// Two drivers of one cell at 10/s each: the second's calls fall due 50 ms after
// the first's (schedule_offset_ns), interleaved, and none at or past the span.
func TestAShiftedScheduleInterleavesWithTheFirstDriver(t *testing.T) {
	rate, duration, shift := 10.0, 0.25, int64(50*time.Millisecond)
	start := time.Unix(100, 0)
	first := (&run{spec: &core.Spec{RatePerS: &rate, DurationS: &duration}}).newPlan(start)
	second := (&run{spec: &core.Spec{RatePerS: &rate, DurationS: &duration, ScheduleOffsetNs: &shift}}).newPlan(start)
	var dues []time.Duration
	for _, p := range []plan{first, second} {
		for due, ok := p.next(0); ok; due, ok = p.next(0) {
			dues = append(dues, due.Sub(start))
		}
	}
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 50 * time.Millisecond,
		150 * time.Millisecond}
	if len(dues) != len(want) {
		t.Fatalf("dues %v, want %v", dues, want)
	}
	for i := range want {
		if dues[i] != want[i] {
			t.Errorf("dues %v, want %v", dues, want)
		}
	}
}
