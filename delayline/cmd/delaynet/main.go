// Command delaynet holds an emulated network open for other programs, or clears up
// after dead ones:
//
//	delaynet up -delayline PATH -link rtt=40ms,jitter=4ms [-seed 1] [-cpus 1] [-max-runtime 10m]
//	delaynet cleanup
//
// `up` builds the client, router and server namespaces, starts the delay line in the
// router, prints one JSON line {"event":"up","client_ns":...,"server_ns":...,...} and
// holds everything until SIGTERM, SIGINT, the end of its standard input or -max-runtime;
// then it prints the delay line's exit line and removes everything. `cleanup` removes
// the namespaces (and the processes in them) of topologies whose owner is dead.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"rpcarena/delayline/topology"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: delaynet up -delayline PATH -link SPEC | delaynet cleanup")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "cleanup":
		var removed []string
		removed, err = topology.CleanupStale()
		json.NewEncoder(os.Stdout).Encode(map[string]any{"event": "cleanup", "removed": removed})
	default:
		err = fmt.Errorf("unknown command %q: use up or cleanup", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "delaynet: %v\n", err)
		os.Exit(1)
	}
}

func up(args []string) error {
	fs := flag.NewFlagSet("delaynet up", flag.ContinueOnError)
	var o topology.DelayLineOptions
	fs.StringVar(&o.Binary, "delayline", "", "path of the delayline command (go build ./cmd/delayline)")
	fs.StringVar(&o.Link, "link", "", "link model, e.g. rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the delay line's random streams")
	fs.StringVar(&o.CPUs, "cpus", "", "run the delay line under taskset -c CPUS")
	fs.DurationVar(&o.MaxRuntime, "max-runtime", 10*time.Minute, "tear down after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.Binary == "" || o.Link == "" {
		return errors.New("give -delayline PATH and -link SPEC")
	}
	signals := make(chan os.Signal, 1) // from here on, a stop removes what was built
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	// When the program that started us dies, our stdout is a broken pipe: printing the exit line
	// must not kill us (Go exits on SIGPIPE for fd 1) before the namespaces are removed.
	signal.Ignore(syscall.SIGPIPE)
	topo, err := topology.New()
	if err != nil {
		return err
	}
	defer topo.Close()
	line, err := topo.StartDelayLine(o)
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.Encode(map[string]any{"event": "up", "client_ns": topo.Client, "router_ns": topo.Router,
		"server_ns": topo.Server, "client_addr": topology.ClientAddr, "server_addr": topology.ServerAddr,
		"delayline": line.Ready})
	waitForEnd(o.MaxRuntime, signals)
	exit, err := line.Stop()
	out.Encode(exit)
	return err
}

func waitForEnd(limit time.Duration, signals <-chan os.Signal) {
	eof := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(eof) }()
	select {
	case <-signals:
	case <-eof:
	case <-time.After(limit):
	}
}
