// Command delayline holds the packets iptables queues to it (-j NFQUEUE) and lets each
// go when the link model says so: one-way delay rtt/2 plus jitter, serialization at a
// rate behind a tail-drop queue, random loss. Run it in the router's namespace:
//
//	ip netns exec ROUTER delayline -link rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit -queues 0,1
//
// It prints {"event":"ready",...} once its queues are bound, and on SIGTERM, SIGINT or
// the end of its standard input it prints {"event":"exit",...} with its counters and CPU
// time, then exits 0. A startup failure prints {"event":"error",...} and exits 1 (2 for
// bad flags). If it dies, the queued traffic stops: the iptables rules have no bypass.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"rpcarena/delayline/contract"
	"rpcarena/delayline/link"
	"rpcarena/delayline/nfq"
)

type options struct {
	link           link.Config
	queues         []uint16
	seed           uint64
	kernelQueueLen uint
	stdinLifeline  bool
	maxRuntime     time.Duration
}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "delayline: %v\n", err)
		return 2
	}
	signals := make(chan os.Signal, 1) // before the ready line: a stop asked any time after it is heard
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	out := json.NewEncoder(stdout)
	lanes, err := openLanes(opts)
	if err != nil {
		fmt.Fprintf(stderr, "delayline: %v\n", err)
		out.Encode(contract.Error{Event: "error", Error: err.Error()})
		return 1
	}
	started := time.Now()
	out.Encode(contract.Ready{Event: "ready", Queues: opts.queues, Link: opts.link.String(),
		Seed: opts.seed, PID: os.Getpid()})
	reason, failure := waitForStop(opts, lanes, stdin, signals)
	report := stopAll(lanes)
	report.Event, report.Reason, report.WallS = "exit", reason, time.Since(started).Seconds()
	if failure != nil {
		report.Error = failure.Error()
	}
	out.Encode(report)
	if failure != nil {
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("delayline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	spec := fs.String("link", "", "link model, e.g. rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000 (or just 100mbit)")
	queues := fs.String("queues", "0,1", "NFQUEUE numbers, one per direction (each gets the whole link model)")
	seed := fs.Uint64("seed", 1, "seed of the random streams (loss, jitter): same seed, same packets, same fates")
	kernelLen := fs.Uint("kernel-queue-len", 20000, "packets the kernel may hold per queue; beyond, it drops (counted)")
	lifeline := fs.Bool("stdin-lifeline", true, "exit when standard input ends (give it a pipe; -stdin-lifeline=false for </dev/null)")
	maxRuntime := fs.Duration("max-runtime", 0, "exit after this long, as a safety net (0 = never)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q: pass the link as -link %s", fs.Arg(0), fs.Arg(0))
	}
	if *spec == "" {
		return options{}, errors.New("no link model: pass one such as -link rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit")
	}
	cfg, err := link.Parse(*spec)
	if err != nil {
		return options{}, err
	}
	nums, err := parseQueues(*queues)
	return options{link: cfg, queues: nums, seed: *seed, kernelQueueLen: *kernelLen,
		stdinLifeline: *lifeline, maxRuntime: *maxRuntime}, err
}

func parseQueues(text string) ([]uint16, error) {
	var out []uint16
	seen := map[uint64]bool{}
	for _, part := range strings.Split(text, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(part), 10, 16)
		if err != nil || seen[n] {
			return nil, fmt.Errorf("bad -queues %q: give distinct queue numbers 0-65535, such as -queues 0,1", text)
		}
		seen[n] = true
		out = append(out, uint16(n))
	}
	return out, nil
}

func openLanes(opts options) ([]*nfq.Lane, error) {
	var lanes []*nfq.Lane
	for i, q := range opts.queues {
		lane, err := nfq.Open(nfq.Options{Queue: q, Link: opts.link, Seed: opts.seed, Stream: uint64(i),
			KernelQueueLen: uint32(opts.kernelQueueLen)})
		if err != nil {
			stopAll(lanes)
			return nil, err
		}
		lanes = append(lanes, lane)
	}
	return lanes, nil
}

// waitForStop returns why the delay line stops, and the error if a lane failed.
func waitForStop(opts options, lanes []*nfq.Lane, stdin io.Reader, signals <-chan os.Signal) (string, error) {
	eof := make(chan struct{})
	if opts.stdinLifeline {
		go func() { io.Copy(io.Discard, stdin); close(eof) }()
	}
	var deadline <-chan time.Time
	if opts.maxRuntime > 0 {
		deadline = time.After(opts.maxRuntime)
	}
	failed := make(chan error, len(lanes))
	for _, lane := range lanes {
		go func() { failed <- <-lane.Failed() }()
	}
	select {
	case sig := <-signals:
		return "signal " + sig.String(), nil
	case <-eof:
		return "stdin closed", nil
	case <-deadline:
		return "max runtime", nil
	case err := <-failed:
		return "error", err
	}
}

// stopAll reads the kernel's drop counts (while the queues are still bound), stops the
// lanes and adds up the process's CPU time.
func stopAll(lanes []*nfq.Lane) contract.Exit {
	kernel, _ := nfq.ReadKernelDrops() // missing /proc entry: no kernel drops to report
	var r contract.Exit
	var packets uint64
	for _, lane := range lanes {
		c := lane.Stop()
		packets += c.Packets
		r.Queues = append(r.Queues, contract.QueueCount{Queue: lane.Queue(), Counters: c, KernelDrops: kernel[lane.Queue()],
			LateP50Us: c.Late.QuantileUs(0.5), LateP99Us: c.Late.QuantileUs(0.99)})
	}
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru) // cannot fail for RUSAGE_SELF
	r.CPUUserUs, r.CPUSystemUs = ru.Utime.Nano()/1000, ru.Stime.Nano()/1000
	if packets > 0 {
		r.CPUUsPerPacket = float64(r.CPUUserUs+r.CPUSystemUs) / float64(packets)
	}
	return r
}
