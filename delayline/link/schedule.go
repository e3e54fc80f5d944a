package link

import (
	"math"
	"math/rand/v2"
	"time"
)

// Drop says why a packet does not get through; Keep means it does.
type Drop uint8

const (
	Keep      Drop = iota
	DropLoss       // random loss with probability Config.Loss
	DropQueue      // tail drop: the queue before the link was full
)

func (d Drop) String() string { return [...]string{"keep", "loss", "queue"}[d] }

// Decision is the schedule's word on one packet.
type Decision struct {
	Drop    Drop
	Release time.Duration // when the packet leaves, on the caller's clock (if Drop == Keep)
}

// JitterTruncation bounds a jitter sample to ±2 standard deviations.
const JitterTruncation = 2.0

// Direction schedules the packets of one direction of a link, one at a time, in arrival order.
//
// A packet that is not lost waits in a FIFO queue for a serializer of Config.RateBitsPerS
// (a virtual clock: it starts when it arrives or when the previous packet has finished,
// whichever is later); it is dropped if the queue already holds the limit. Once serialized it
// travels for RTT/2 plus a jitter sample. Unless Config.Reorder, it never leaves before the
// packet ahead of it, so jitter delays packets but does not reorder them.
type Direction struct {
	cfg         Config
	rng         *rand.Rand
	lastArrival time.Duration
	lastFinish  time.Duration // when the serializer is free
	lastRelease time.Duration
	backlog     fifo // packets queued or being serialized: finish times and sizes
}

// NewDirection starts a direction's schedule with a reproducible random stream:
// the same seed, stream and arrivals give the same decisions.
func NewDirection(cfg Config, seed, stream uint64) *Direction {
	return &Direction{cfg: cfg, rng: rand.New(rand.NewPCG(seed, stream))}
}

// Admit decides the fate of a packet of `size` bytes arriving at `arrival`.
// Arrivals must not go back in time; an earlier one is taken as the latest seen.
func (d *Direction) Admit(arrival time.Duration, size int) Decision {
	arrival = max(arrival, d.lastArrival)
	d.lastArrival = arrival
	lost := d.cfg.Loss > 0 && d.rng.Float64() < d.cfg.Loss
	delay := max(0, d.cfg.OneWay()+d.jitter()) // drawn for every packet, lost or not
	if lost {
		return Decision{Drop: DropLoss}
	}
	d.backlog.drain(arrival)
	if d.full(size) {
		return Decision{Drop: DropQueue}
	}
	finish := max(arrival, d.lastFinish) + d.serialization(size)
	d.lastFinish = finish
	d.backlog.push(finish, size)
	release := finish + delay
	if !d.cfg.Reorder {
		release = max(release, d.lastRelease)
	}
	d.lastRelease = max(release, d.lastRelease)
	return Decision{Release: release}
}

// jitter is a normal sample with sd = Config.Jitter, truncated to ±JitterTruncation sd
// by drawing again (so the delay's mean stays RTT/2 when RTT/2 >= 2 sd).
func (d *Direction) jitter() time.Duration {
	if d.cfg.Jitter <= 0 {
		return 0
	}
	for range 64 { // P(64 rejections in a row) = 0.0455^64: never, but bounded
		if z := d.rng.NormFloat64(); math.Abs(z) <= JitterTruncation {
			return time.Duration(z * float64(d.cfg.Jitter))
		}
	}
	return 0
}

func (d *Direction) serialization(size int) time.Duration {
	if d.cfg.RateBitsPerS <= 0 {
		return 0
	}
	return time.Duration(int64(size) * 8 * int64(time.Second) / d.cfg.RateBitsPerS)
}

func (d *Direction) full(size int) bool {
	if d.cfg.QueueBytes > 0 {
		return d.backlog.bytes+int64(size) > d.cfg.QueueBytes
	}
	return d.cfg.QueuePackets > 0 && d.backlog.len() >= d.cfg.QueuePackets
}

// fifo is a growable ring of the packets still in the queue, oldest first.
type fifo struct {
	finish []time.Duration
	size   []int
	head   int
	n      int
	bytes  int64
}

func (f *fifo) len() int { return f.n }

func (f *fifo) push(finish time.Duration, size int) {
	if f.n == len(f.finish) {
		f.grow()
	}
	i := (f.head + f.n) % len(f.finish)
	f.finish[i], f.size[i] = finish, size
	f.n++
	f.bytes += int64(size)
}

// drain forgets the packets whose serialization has finished by `now`.
func (f *fifo) drain(now time.Duration) {
	for f.n > 0 && f.finish[f.head] <= now {
		f.bytes -= int64(f.size[f.head])
		f.head = (f.head + 1) % len(f.finish)
		f.n--
	}
}

func (f *fifo) grow() {
	capacity := max(64, 2*len(f.finish))
	finish, size := make([]time.Duration, capacity), make([]int, capacity)
	for i := range f.n {
		j := (f.head + i) % len(f.finish)
		finish[i], size[i] = f.finish[j], f.size[j]
	}
	f.finish, f.size, f.head = finish, size, 0
}
