package nfq

import (
	"container/heap"
	"strings"
	"testing"
	"time"

	nfqueue "github.com/florianl/go-nfqueue/v2"

	"rpcarena/delayline/link"
)

func TestHeldPacketsLeaveByReleaseThenArrival(t *testing.T) {
	var h heldHeap
	for _, p := range []held{{id: 4, release: 30}, {id: 1, release: 10}, {id: 3, release: 20}, {id: 2, release: 20}, {id: 5, release: 5}} {
		heap.Push(&h, p)
	}
	var order []uint32
	for h.Len() > 0 {
		order = append(order, heap.Pop(&h).(held).id)
	}
	if want := []uint32{5, 1, 2, 3, 4}; !equal(order, want) {
		t.Errorf("popped %v, want %v", order, want)
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLeadSettlesOnTheMedianWakeUpLateness(t *testing.T) {
	var l lead
	// Wake-ups late by 40, 60 or 80 µs in turn: the median is 60 µs.
	for i := range 30 {
		l.observe(int64(40_000 + 20_000*(i%3)))
	}
	if l.ns < 50_000 || l.ns > 70_000 {
		t.Errorf("lead %d ns after 30 wake-ups with median lateness 60 µs", l.ns)
	}
	for range 5 {
		l.observe(50_000_000) // a few stalls of 50 ms move it by 16 µs each at most
	}
	if l.ns > 150_000 {
		t.Errorf("lead %d ns after 5 stalls", l.ns)
	}
	for range 1000 {
		l.observe(10_000_000) // a stalled machine cannot push it past its bound
	}
	if l.ns != leadMaxNs {
		t.Errorf("lead %d ns, want the bound %d", l.ns, leadMaxNs)
	}
}

func TestArrivalUsesTheKernelTimestamp(t *testing.T) {
	now := int64(50 * time.Second)
	stamp := func(age time.Duration) nfqueue.Attribute {
		ts := time.Now().Add(-age)
		return nfqueue.Attribute{Timestamp: &ts}
	}
	if got := arrival(nfqueue.Attribute{}, now); got != now {
		t.Errorf("no timestamp: arrival %d, want now %d", got, now)
	}
	if got := now - arrival(stamp(300*time.Microsecond), now); got < int64(300*time.Microsecond) || got > int64(50*time.Millisecond) {
		t.Errorf("a 300 µs old timestamp moved the arrival back by %v", time.Duration(got))
	}
	for _, age := range []time.Duration{-time.Second, time.Second} { // the wall clock stepped
		if got := arrival(stamp(age), now); got != now {
			t.Errorf("timestamp %v old: arrival %d, want now", age, got)
		}
	}
}

func TestHistogramQuantiles(t *testing.T) {
	var h Histogram
	for range 90 {
		h.add(3_000) // 3 µs: bucket [2, 4)
	}
	for range 10 {
		h.add(700_000) // 700 µs: bucket [512, 1024)
	}
	h.add(-5_000) // early: bucket 0
	if q := h.QuantileUs(0.5); q != 4 {
		t.Errorf("p50 <= %v µs, want 4", q)
	}
	if q := h.QuantileUs(0.99); q != 700 {
		t.Errorf("p99 <= %v µs, want 700 (the maximum, below the bucket's bound)", q)
	}
	var empty Histogram
	if q := empty.QuantileUs(0.5); q != 0 {
		t.Errorf("empty histogram p50 %v", q)
	}
}

func TestCountersByReason(t *testing.T) {
	var c Counters
	c.arrived(100, link.Keep, 0)
	c.arrived(200, link.DropLoss, 0)
	c.arrived(300, link.DropQueue, 0)
	c.released(100, 1000)
	if c.Packets != 3 || c.Bytes != 600 || c.DroppedLoss != 1 || c.DroppedQueue != 1 || c.AcceptedPackets != 1 || c.AcceptedBytes != 100 {
		t.Errorf("counters %+v", c)
	}
}

func TestParseKernelDrops(t *testing.T) {
	proc := "    0 4294963191     0 2   128     3     7     1234  1\n    1 4294963190     2 2   128     0     0      999  1\n"
	got, err := parseKernelDrops(strings.NewReader(proc))
	if err != nil || got[0] != (KernelDrops{QueueFull: 3, SocketFull: 7}) || got[1] != (KernelDrops{}) || len(got) != 2 {
		t.Errorf("parsed %+v, %v", got, err)
	}
}
