// Command delaybench measures the delay line's capacity: it offers UDP datagrams from
// the client to the server namespace at rising packet rates through a link of
// -link (default rtt=10ms: 5 ms one way), measures each datagram's one-way delay (both
// ends share this process's clock) and the delay line's CPU time, and prints a table.
// The capacity is the highest rate whose p99 one-way delay stays within 10% of the
// configured one with nothing lost. Needs root; leaves nothing behind.
//
//	go run ./cmd/delaybench [-link rtt=10ms] [-rates 1000,2000,...] [-step 1s] [-cpus 1]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"rpcarena/delayline/link"
	"rpcarena/delayline/topology"
)

type options struct {
	spec    string
	oneWay  time.Duration
	rates   []int
	step    time.Duration
	cpus    string
	rt      int
	binary  string
	verbose bool
}

func main() {
	o, err := parseFlags()
	if err != nil {
		fmt.Fprintf(os.Stderr, "delaybench: %v\n", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "delaybench: %v\n", err)
		os.Exit(1)
	}
}

func parseFlags() (options, error) {
	var o options
	var rates string
	flag.StringVar(&o.spec, "link", "rtt=10ms", "the link model under test (keep loss and rate off: they would drop or queue packets)")
	flag.StringVar(&rates, "rates", "1000,2000,5000,10000,20000,40000,80000,160000", "offered packet rates, packets/s, rising")
	flag.DurationVar(&o.step, "step", time.Second, "how long each rate is offered")
	flag.StringVar(&o.cpus, "cpus", "", "run the delay line under taskset -c CPUS")
	flag.IntVar(&o.rt, "realtime", 0, "run the delay line under chrt -f N (SCHED_FIFO priority N; 0: not)")
	flag.StringVar(&o.binary, "delayline", "", "the delayline command (default: build it)")
	flag.Parse()
	cfg, err := link.Parse(o.spec)
	if err != nil {
		return o, err
	}
	o.oneWay = cfg.OneWay()
	for _, r := range strings.Split(rates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil || n <= 0 || n > 1_000_000 {
			return o, fmt.Errorf("bad -rates %q: give packet rates 1-1000000 such as 1000,5000,20000", rates)
		}
		o.rates = append(o.rates, n)
	}
	if o.step <= 0 || o.step > time.Minute {
		return o, fmt.Errorf("bad -step %v: give 100ms to 1m", o.step)
	}
	return o, nil
}

func run(o options) error {
	if o.binary == "" {
		dir, err := topology.TempDir()
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if o.binary, err = topology.BuildDelayLine(dir); err != nil {
			return err
		}
	}
	topology.CleanupStale()
	topo, err := topology.New()
	if err != nil {
		return err
	}
	defer topo.Close()
	go closeOnSignal()
	return sweep(o, topo)
}

func closeOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	<-signals
	topology.CloseAll()
	os.Exit(1)
}

// sweep offers each rate in turn, with a fresh delay line per rate, and prints a row
// each, until the median delay is off by more than 10% or the sender falls behind.
func sweep(o options, topo *topology.Topology) error {
	fmt.Printf("link %s (one way %v), %v per rate, delay line CPUs: %s, SCHED_FIFO priority: %d\n",
		o.spec, o.oneWay, o.step, orAll(o.cpus), o.rt)
	fmt.Printf("%8s %8s %8s %5s %7s %7s %7s %8s %8s %10s %9s %9s\n", "rate/s", "sent/s", "recv/s", "lost",
		"p50_us", "p99_us", "max_us", "extra50", "extra99", "cpu_us/pkt", "late99_us", "wait99_us")
	var byMedian, byP99 capacity
	for _, rate := range o.rates {
		r, err := measureRate(o, topo, rate)
		if err != nil {
			return err
		}
		extra50, extra99 := r.extra(r.p50, o.oneWay), r.extra(r.p99, o.oneWay)
		fmt.Printf("%8d %8.0f %8.0f %5d %7.0f %7.0f %7.0f %7.1f%% %7.1f%% %10.1f %9.0f %9.0f\n", rate, r.sent, r.throughput,
			r.lost, us(r.p50), us(r.p99), us(r.max), 100*extra50, 100*extra99, r.cpuUsPerPacket, r.lateP99Us, r.waitP99Us)
		if r.sent < 0.9*float64(rate) {
			fmt.Printf("the sender managed only %.0f/s: no capacity beyond this can be measured here\n", r.sent)
			break
		}
		byP99.offer(rate, r, extra99)
		if !byMedian.offer(rate, r, extra50) {
			break
		}
	}
	fmt.Printf("capacity (median within 10%% of %v, none lost): %d packets/s, %.1f µs CPU per packet\n",
		o.oneWay, byMedian.rate, byMedian.cpuUsPerPacket)
	fmt.Printf("capacity (p99 within 10%% of %v, none lost):    %d packets/s, %.1f µs CPU per packet\n",
		o.oneWay, byP99.rate, byP99.cpuUsPerPacket)
	return nil
}

// capacity is the highest rate that met a criterion, as long as every lower rate did too.
type capacity struct {
	rate           int
	cpuUsPerPacket float64
	failed         bool
}

func (c *capacity) offer(rate int, r result, extra float64) bool {
	if c.failed || r.lost > 0 || extra > 0.10 {
		c.failed = true
		return false
	}
	c.rate, c.cpuUsPerPacket = rate, r.cpuUsPerPacket
	return true
}

func orAll(cpus string) string {
	if cpus == "" {
		return "unpinned"
	}
	return cpus
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }
