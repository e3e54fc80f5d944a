package nfq

import (
	"math/bits"

	"rpcarena/delayline/link"
)

// Counters is what one lane saw; JSON keys carry their units.
type Counters struct {
	Packets         uint64    `json:"packets"`
	Bytes           uint64    `json:"bytes"`
	AcceptedPackets uint64    `json:"accepted_packets"`
	AcceptedBytes   uint64    `json:"accepted_bytes"`
	DroppedLoss     uint64    `json:"dropped_loss"`
	DroppedQueue    uint64    `json:"dropped_queue"`
	HeldAtExit      uint64    `json:"held_at_exit"`
	Late            Histogram `json:"late_us"`           // verdict time - release time (0 when early)
	Wait            Histogram `json:"kernel_to_user_us"` // receive timestamp - time the packet reached us
	LeadUs          float64   `json:"lead_us"`           // how early the timer was armed, at the end
}

func (c *Counters) arrived(size int, d link.Drop, waitNs int64) {
	c.Packets++
	c.Wait.add(waitNs)
	c.Bytes += uint64(size)
	switch d {
	case link.DropLoss:
		c.DroppedLoss++
	case link.DropQueue:
		c.DroppedQueue++
	}
}

func (c *Counters) released(size int, lateNs int64) {
	c.AcceptedPackets++
	c.AcceptedBytes += uint64(size)
	c.Late.add(lateNs)
}

// Histogram counts durations in powers of two microseconds: bucket k counts
// [2^(k-1), 2^k) µs, bucket 0 less than 1 µs (negative ones too).
type Histogram struct {
	Buckets [24]uint64 `json:"log2_buckets"`
	MaxUs   float64    `json:"max"`
}

func (l *Histogram) add(ns int64) {
	us := uint64(max(ns, 0) / 1000)
	l.Buckets[min(bits.Len64(us), len(l.Buckets)-1)]++
	l.MaxUs = max(l.MaxUs, float64(ns)/1000)
}

// QuantileUs is an upper bound of the q-quantile (0..1) of the lateness, in µs.
func (l *Histogram) QuantileUs(q float64) float64 {
	var total uint64
	for _, n := range l.Buckets {
		total += n
	}
	var seen uint64
	for k, n := range l.Buckets {
		seen += n
		if total > 0 && float64(seen) >= q*float64(total) {
			return min(float64(uint64(1)<<k), l.MaxUs)
		}
	}
	return 0
}
