package drive

import (
	"math/rand/v2"
	"time"
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
