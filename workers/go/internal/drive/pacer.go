package drive

import (
	"math/rand/v2"
	"sort"
	"time"

	"rpcarena/workers/go/internal/core"
)

// Pacer gives the open loop's arrival times, as offsets from the phase's start.
type Pacer interface {
	Next() time.Duration
}

// ConstantPacer spaces arrivals evenly: 0, 1/rate, 2/rate, ...
type ConstantPacer struct {
	gap float64 // seconds
	n   int64
}

func NewConstantPacer(ratePerS float64) *ConstantPacer { return &ConstantPacer{gap: 1 / ratePerS} }

func (p *ConstantPacer) Next() time.Duration {
	offset := seconds(float64(p.n) * p.gap)
	p.n++
	return offset
}

// PoissonPacer draws exponential gaps of mean 1/rate, from a fixed seed so two
// runs of one spec see the same arrivals.
type PoissonPacer struct {
	rate float64
	rng  *rand.Rand
	t    float64 // seconds
}

func NewPoissonPacer(ratePerS float64, seed uint64) *PoissonPacer {
	return &PoissonPacer{rate: ratePerS, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (p *PoissonPacer) Next() time.Duration {
	offset := seconds(p.t)
	p.t += p.rng.ExpFloat64() / p.rate
	return offset
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// StagedPacer paces each stage in turn at its own rate, from the stage's own
// start (k6's ramping arrival rate, in steps). Past the last stage it gives
// offsets at or after the stages' end, which ends a phase of that duration.
type StagedPacer struct {
	stages  []core.Stage
	arrival string
	k       int
	begin   time.Duration // the current stage's start
	current Pacer
}

func NewStagedPacer(stages []core.Stage, arrival string) *StagedPacer {
	return &StagedPacer{stages: stages, arrival: arrival}
}

func (p *StagedPacer) Next() time.Duration {
	for p.k < len(p.stages) {
		stage := p.stages[p.k]
		if p.current == nil {
			p.current = newPacer(stage.RatePerS, p.arrival)
		}
		if offset := p.current.Next(); offset < seconds(stage.DurationS) {
			return p.begin + offset
		}
		p.begin += seconds(stage.DurationS)
		p.k, p.current = p.k+1, nil
	}
	return p.begin
}

func newPacer(ratePerS float64, arrival string) Pacer {
	if arrival == core.ArrivalPoisson {
		return NewPoissonPacer(ratePerS, 1)
	}
	return NewConstantPacer(ratePerS)
}

// stageEnds are each stage's end, as offsets from the phase's start.
func stageEnds(stages []core.Stage) []time.Duration {
	ends, end := make([]time.Duration, len(stages)), time.Duration(0)
	for i, stage := range stages {
		end += seconds(stage.DurationS)
		ends[i] = end
	}
	return ends
}

// stageOf is the stage a call due at offset belongs to.
func stageOf(ends []time.Duration, offset time.Duration) int {
	k := sort.Search(len(ends), func(i int) bool { return ends[i] > offset })
	return min(k, len(ends)-1)
}
