package drive

import (
	"math"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"rpcarena/workers/go/internal/core"
)

// series is one client's measured phase interval by interval: the open
// interval's histogram and errors, and the intervals closed, kept encoded (a
// few hundred bytes each) so that a soak of hours stays small.
type series struct {
	began  time.Time
	every  time.Duration
	index  int64
	hist   *hdrhistogram.Histogram
	errors map[string]int64
	closed []core.Interval
}

func newSeries(every time.Duration) *series {
	return &series{every: max(every, time.Nanosecond), hist: newHistogram(), errors: map[string]int64{}}
}

// at opens the interval holding t (a call's start, or its due time), closing
// the one before.
func (s *series) at(t time.Time) {
	if k := max(int64(t.Sub(s.began)/s.every), 0); k != s.index {
		s.close()
		s.index = k
	}
}

func (s *series) close() {
	if s.hist.TotalCount() == 0 && len(s.errors) == 0 {
		return
	}
	encoded, _ := encode(s.hist) // an encoding error is the result's too: encode(total.hist) reports it
	s.closed = append(s.closed, core.Interval{StartS: startS(s.index, s.every), Calls: s.hist.TotalCount(),
		Errors: s.errors, Histogram: encoded})
	s.hist.Reset()
	s.errors = map[string]int64{}
}

// startS is the start as the orchestrator merges it: to the microsecond.
func startS(index int64, every time.Duration) float64 {
	return math.Round(float64(index)*every.Seconds()*1e6) / 1e6
}

// mergeSeries adds the clients' intervals of the same start, in order of start.
func mergeSeries(tallies []*tally) ([]core.Interval, error) {
	hists, errs := map[float64]*hdrhistogram.Histogram{}, map[float64]map[string]int64{}
	for _, t := range tallies {
		for _, in := range t.series.closed {
			h, err := hdrhistogram.Decode([]byte(in.Histogram))
			if err != nil {
				return nil, err
			}
			if hists[in.StartS] == nil {
				hists[in.StartS], errs[in.StartS] = newHistogram(), map[string]int64{}
			}
			hists[in.StartS].Merge(h)
			for kind, n := range in.Errors {
				errs[in.StartS][kind] += n
			}
		}
	}
	starts := make([]float64, 0, len(hists))
	for start := range hists {
		starts = append(starts, start)
	}
	sort.Float64s(starts)
	out := make([]core.Interval, 0, len(starts))
	for _, start := range starts {
		encoded, err := encode(hists[start])
		if err != nil {
			return nil, err
		}
		out = append(out, core.Interval{StartS: start, Calls: hists[start].TotalCount(), Errors: errs[start],
			Histogram: encoded})
	}
	return out, nil
}
