package link

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

func mustParse(t *testing.T, spec string) Config {
	t.Helper()
	c, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// arrival is one packet given to the schedule.
type arrival struct {
	at   time.Duration
	size int
}

func admitAll(d *Direction, packets []arrival) []Decision {
	out := make([]Decision, len(packets))
	for i, p := range packets {
		out[i] = d.Admit(p.at, p.size)
	}
	return out
}

func kept(at time.Duration) Decision { return Decision{Release: at} }

var dropQueue = Decision{Drop: DropQueue}

func TestScheduleTable(t *testing.T) {
	cases := []struct {
		name    string
		spec    string
		packets []arrival
		want    []Decision
	}{
		{"one-way delay is rtt/2", "rtt=40ms",
			[]arrival{{1000 * ms, 100}, {1001 * ms, 1500}},
			[]Decision{kept(1020 * ms), kept(1021 * ms)}},
		{"zero rtt releases at once", "rtt=0",
			[]arrival{{5 * ms, 100}},
			[]Decision{kept(5 * ms)}},
		// 8mbit = one byte per microsecond: a 1000-byte packet takes 1 ms on the link.
		{"rate serializes a burst", "rtt=10ms,rate=8mbit",
			[]arrival{{0, 1000}, {0, 1000}, {0, 500}, {10 * ms, 1000}},
			[]Decision{kept(6 * ms), kept(7 * ms), kept(7500 * time.Microsecond), kept(16 * ms)}},
		{"a late packet does not wait for an idle link", "rate=8mbit",
			[]arrival{{0, 1000}, {5 * ms, 1000}},
			[]Decision{kept(1 * ms), kept(6 * ms)}},
		{"queue limit in packets drops the tail", "rate=8mbit,queue=3",
			[]arrival{{0, 1000}, {0, 1000}, {0, 1000}, {0, 1000}, {1 * ms, 1000}, {1 * ms, 1000}},
			[]Decision{kept(1 * ms), kept(2 * ms), kept(3 * ms), dropQueue, kept(4 * ms), dropQueue}},
		{"queue limit in bytes drops the tail", "rate=8mbit,queue=2500b",
			[]arrival{{0, 1000}, {0, 1000}, {0, 1000}, {0, 400}},
			[]Decision{kept(1 * ms), kept(2 * ms), dropQueue, kept(2400 * time.Microsecond)}},
		{"an arrival back in time counts as the latest", "rtt=2ms",
			[]arrival{{10 * ms, 100}, {9 * ms, 100}},
			[]Decision{kept(11 * ms), kept(11 * ms)}},
	}
	for _, c := range cases {
		got := admitAll(NewDirection(mustParse(t, c.spec), 1, 0), c.packets)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s: packet %d: got %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// spaced gives n packets of 1000 bytes, `gap` apart.
func spaced(n int, gap time.Duration) []arrival {
	out := make([]arrival, n)
	for i := range out {
		out[i] = arrival{time.Duration(i) * gap, 1000}
	}
	return out
}

func TestJitterIsATruncatedNormal(t *testing.T) {
	const n = 20000
	packets := spaced(n, time.Second) // far apart: no packet holds back another
	got := admitAll(NewDirection(mustParse(t, "rtt=40ms,jitter=4ms"), 7, 0), packets)
	var sum, sumSq float64
	for i, d := range got {
		delay := d.Release - packets[i].at
		if delay < 12*ms || delay > 28*ms {
			t.Fatalf("packet %d: delay %v outside 20ms ± 2 sd (8ms)", i, delay)
		}
		x := float64(delay-20*ms) / float64(ms)
		sum, sumSq = sum+x, sumSq+x*x
	}
	mean, sd := sum/n, math.Sqrt(sumSq/n-(sum/n)*(sum/n))
	// A normal truncated at ±2 sd keeps 0.880 of its sd; the mean's standard error is 0.025 ms.
	if math.Abs(mean) > 0.1 || math.Abs(sd-0.880*4) > 0.1 {
		t.Errorf("jitter mean %.3f ms (want 0), sd %.3f ms (want %.3f)", mean, sd, 0.880*4)
	}
}

func TestNoReorderingUnlessAsked(t *testing.T) {
	packets := spaced(5000, 100*time.Microsecond) // far closer than the jitter
	inOrder := admitAll(NewDirection(mustParse(t, "rtt=10ms,jitter=2ms"), 1, 0), packets)
	for i := 1; i < len(inOrder); i++ {
		if inOrder[i].Release < inOrder[i-1].Release {
			t.Fatalf("packet %d leaves at %v, before packet %d at %v", i, inOrder[i].Release, i-1, inOrder[i-1].Release)
		}
	}
	reordered := admitAll(NewDirection(mustParse(t, "rtt=10ms,jitter=2ms,reorder"), 1, 0), packets)
	overtaken := 0
	for i := 1; i < len(reordered); i++ {
		if reordered[i].Release < reordered[i-1].Release {
			overtaken++
		}
	}
	if overtaken < len(packets)/4 {
		t.Errorf("with reorder, only %d of %d packets overtook the one ahead", overtaken, len(packets))
	}
}

// binomial99 is the 99% interval of a binomial count (normal approximation, z = 2.576).
func binomial99(n int, p float64) (lo, hi float64) {
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	return mean - 2.576*sd, mean + 2.576*sd
}

func TestLossRateWithinBinomialInterval(t *testing.T) {
	for _, c := range []struct {
		spec string
		p    float64
		seed uint64
	}{{"loss=0.1%", 0.001, 1}, {"loss=1%", 0.01, 2}, {"loss=5%,rtt=1ms", 0.05, 3}} {
		const n = 200000
		lost := 0
		d := NewDirection(mustParse(t, c.spec), c.seed, 0)
		for _, p := range spaced(n, time.Microsecond) {
			if d.Admit(p.at, p.size).Drop == DropLoss {
				lost++
			}
		}
		if lo, hi := binomial99(n, c.p); float64(lost) < lo || float64(lost) > hi {
			t.Errorf("%s: %d of %d lost, outside the 99%% interval [%.0f, %.0f]", c.spec, lost, n, lo, hi)
		}
	}
}

func TestLossExtremes(t *testing.T) {
	for spec, want := range map[string]Drop{"loss=0%": Keep, "loss=100%": DropLoss} {
		for i, d := range admitAll(NewDirection(mustParse(t, spec), 1, 0), spaced(1000, ms)) {
			if d.Drop != want {
				t.Fatalf("%s: packet %d: %v", spec, i, d.Drop)
			}
		}
	}
}

func TestSeedReproducesDecisions(t *testing.T) {
	busy := mustParse(t, "rtt=20ms,jitter=3ms,loss=2%,rate=10mbit,queue=20")
	packets := spaced(3000, 300*time.Microsecond) // faster than the rate: the queue drops too
	a, b := admitAll(NewDirection(busy, 42, 0), packets), admitAll(NewDirection(busy, 42, 0), packets)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("packet %d: %+v then %+v with the same seed", i, a[i], b[i])
		}
	}
	// Packets far apart, so each release shows its own jitter sample.
	idle := mustParse(t, "rtt=20ms,jitter=3ms,loss=2%")
	one := admitAll(NewDirection(idle, 42, 0), spaced(3000, time.Second))
	other := admitAll(NewDirection(idle, 42, 1), spaced(3000, time.Second))
	same := 0
	for i := range one {
		if one[i] == other[i] {
			same++
		}
	}
	if same > len(one)/10 {
		t.Errorf("another stream gave %d of %d identical decisions", same, len(one))
	}
}

func TestBacklogStaysBounded(t *testing.T) {
	d := NewDirection(mustParse(t, "rate=1mbit,queue=100"), 1, 0)
	for _, p := range spaced(100000, time.Microsecond) { // 8 Gbit/s offered to 1 Mbit/s
		d.Admit(p.at, p.size)
	}
	if d.backlog.len() > 100 || len(d.backlog.finish) > 128 {
		t.Errorf("backlog holds %d packets in a ring of %d", d.backlog.len(), len(d.backlog.finish))
	}
}
