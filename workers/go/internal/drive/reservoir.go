package drive

import (
	"math/rand/v2"
	"sync"
)

// reservoir keeps a uniform sample of at most limit [call_index, latency_ns]
// pairs over all clients (Algorithm R): memory stays bounded however long a run.
type reservoir struct {
	mu      sync.Mutex
	limit   int
	seen    int64
	samples [][2]int64
	rng     *rand.Rand
}

func newReservoir(limit int) *reservoir {
	return &reservoir{limit: limit, samples: make([][2]int64, 0, min(limit, 1<<16)),
		rng: rand.New(rand.NewPCG(1, 2))}
}

// offer adds the next call (index = calls offered so far) with its latency.
func (r *reservoir) offer(latencyNs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	index := r.seen
	r.seen++
	switch {
	case len(r.samples) < r.limit:
		r.samples = append(r.samples, [2]int64{index, latencyNs})
	case r.limit > 0:
		if j := r.rng.Int64N(r.seen); j < int64(r.limit) {
			r.samples[j] = [2]int64{index, latencyNs}
		}
	}
}
