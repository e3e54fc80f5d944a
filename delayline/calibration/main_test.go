// Package calibration checks the delay line end to end: real TCP, UDP and ICMP between
// a client and a server namespace, through the router namespace where the delayline
// command holds each packet. Tests skip (saying why) without root, iproute2, iptables,
// ethtool or the NFQUEUE target. -short runs the CI subset.
package calibration

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"

	"rpcarena/delayline/contract"
	"rpcarena/delayline/topology"
)

var shared struct {
	once   sync.Once
	topo   *topology.Topology
	binary string
	err    error
	dir    string
}

func TestMain(m *testing.M) {
	if topology.Unavailable() == "" {
		if removed, err := topology.CleanupStale(); len(removed) > 0 || err != nil {
			fmt.Fprintf(os.Stderr, "removed stale namespaces %v (%v)\n", removed, err)
		}
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-signals
		topology.CloseAll() // the delay line goes with them; a SIGKILL leaves CleanupStale's work
		fmt.Fprintf(os.Stderr, "calibration: %v: closed the emulated network\n", sig)
		os.Exit(1)
	}()
	code := m.Run()
	if shared.topo != nil {
		if err := shared.topo.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.RemoveAll(shared.dir)
	os.Exit(code)
}

// network is the topology all tests share (built once), and the delayline command.
func network(t *testing.T) (*topology.Topology, string) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = topology.TempDir(); shared.err != nil {
			return
		}
		if shared.binary, shared.err = topology.BuildDelayLine(shared.dir); shared.err != nil {
			return
		}
		shared.topo, shared.err = topology.New()
	})
	var unavailable *topology.UnavailableError
	if errors.As(shared.err, &unavailable) {
		t.Skipf("no emulated network here: %v", shared.err)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.topo, shared.binary
}

// withLink runs the delay line with `spec` for the duration of fn, then returns its exit line.
func withLink(t *testing.T, spec string, fn func(topo *topology.Topology)) contract.Exit {
	t.Helper()
	topo, binary := network(t)
	line, err := topo.StartDelayLine(topology.DelayLineOptions{Binary: binary, Link: spec, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := line.Stop(); err != nil && !errors.Is(err, topology.ErrStopped) {
			t.Error(err)
		}
	}()
	fn(topo)
	exit, err := line.Stop()
	if err != nil {
		t.Fatal(err)
	}
	return exit
}
