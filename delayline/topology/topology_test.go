package topology

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestStaleEntriesAreThoseOfDeadOwners(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	d, me := dead.Process.Pid, os.Getpid()
	dir := t.TempDir()
	names := []string{
		fmt.Sprintf("rpcarena-%d-1-client", d), fmt.Sprintf("rpcarena-%d-1-client", me),
		fmt.Sprintf("rpcarena-%d-delayline-42", d), fmt.Sprintf("rpcarena-%d-delayline-43", me),
		fmt.Sprintf("rpcarena%dx0", d), fmt.Sprintf("rpcarena-%d-1-other", d), "rpcarena-redis-x1",
	}
	for _, n := range names {
		if err := os.Mkdir(filepath.Join(dir, n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := staleEntries(dir, nameRe); len(got) != 1 || got[0] != names[0] {
		t.Errorf("stale namespaces %v, want [%s]", got, names[0])
	}
	if got := staleEntries(dir, tempDirRe); len(got) != 1 || got[0] != names[2] {
		t.Errorf("stale folders %v, want [%s]", got, names[2])
	}
}

var built struct {
	once        sync.Once
	dir, binary string
	err         error
}

func TestMain(m *testing.M) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		CloseAll()
		os.RemoveAll(built.dir)
		os.Exit(1)
	}()
	code := m.Run()
	CloseAll()
	os.RemoveAll(built.dir)
	os.Exit(code)
}

// delayLineBinary builds the delayline command once for all tests.
func delayLineBinary(t *testing.T) string {
	built.once.Do(func() {
		if built.dir, built.err = TempDir(); built.err == nil {
			built.binary, built.err = BuildDelayLine(built.dir)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.binary
}

// needTopology skips a test that needs root, iproute2, iptables and ethtool.
func needTopology(t *testing.T) *Topology {
	t.Helper()
	topo, err := New()
	var unavailable *UnavailableError
	if errors.As(err, &unavailable) {
		t.Skipf("no emulated network here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := topo.Close(); err != nil {
			t.Error(err)
		}
	})
	return topo
}

func namespaceExists(name string) bool {
	_, err := os.Stat("/run/netns/" + name)
	return err == nil
}

// echoServer accepts one connection at a time in the server namespace and echoes it.
func echoServer(t *testing.T, topo *Topology) string {
	t.Helper()
	var ln net.Listener
	if err := In(topo.Server, func() (err error) { ln, err = net.Listen("tcp", ServerAddr+":0"); return }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func dialFromClient(topo *Topology, addr string, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	err := In(topo.Client, func() (err error) { c, err = net.DialTimeout("tcp", addr, timeout); return })
	return c, err
}

// roundTrip sends one byte and waits for it to come back.
func roundTrip(c net.Conn) (time.Duration, error) {
	start := time.Now()
	c.SetDeadline(start.Add(2 * time.Second))
	buf := []byte{1}
	if _, err := c.Write(buf); err != nil {
		return 0, err
	}
	_, err := io.ReadFull(c, buf)
	return time.Since(start), err
}

func TestTopologyFailsClosedAndDelays(t *testing.T) {
	topo := needTopology(t)
	addr := echoServer(t, topo)
	if c, err := dialFromClient(topo, addr, 300*time.Millisecond); err == nil {
		c.Close()
		t.Fatal("with no delay line bound, the client reached the server: the link fails open")
	}
	binary := delayLineBinary(t)
	line, err := topo.StartDelayLine(DelayLineOptions{Binary: binary, Link: "rtt=20ms"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialFromClient(topo, addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if rtt, err := roundTrip(c); err != nil || rtt < 20*time.Millisecond {
			t.Fatalf("round trip %v, %v: want at least the configured 20ms", rtt, err)
		}
	}
	// A delay line that dies (here SIGKILL, no exit line) takes the link down with it.
	if err := syscall.Kill(line.Ready.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := line.Stop(); err == nil {
		t.Error("Stop after SIGKILL found an exit line")
	}
	if _, err := roundTrip(c); err == nil {
		t.Error("with the delay line killed, a round trip still went through: the link fails open")
	}
}

func TestDelayLineCountsBothDirections(t *testing.T) {
	topo := needTopology(t)
	addr := echoServer(t, topo)
	binary := delayLineBinary(t)
	line, err := topo.StartDelayLine(DelayLineOptions{Binary: binary, Link: "rtt=2ms"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialFromClient(topo, addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const trips = 10
	for range trips {
		if _, err := roundTrip(c); err != nil {
			t.Fatal(err)
		}
	}
	exit, err := line.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if exit.Event != "exit" || exit.Reason != "signal terminated" || len(exit.Queues) != 2 {
		t.Fatalf("exit line %+v", exit)
	}
	for _, q := range exit.Queues {
		// The handshake and 10 one-byte requests (or their replies), at least.
		if q.Packets < trips+2 || q.AcceptedPackets != q.Packets || q.Dropped() != 0 || q.HeldAtExit != 0 {
			t.Errorf("queue %d: %+v", q.Queue, q)
		}
	}
	if exit.CPUUserUs+exit.CPUSystemUs <= 0 || exit.CPUUsPerPacket <= 0 {
		t.Errorf("no CPU time in the exit line: %+v", exit)
	}
}

func TestCloseRemovesEverything(t *testing.T) {
	topo := needTopology(t)
	names := []string{topo.Client, topo.Router, topo.Server}
	if err := topo.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ns := range names {
		if namespaceExists(ns) {
			t.Errorf("namespace %s is still there after Close", ns)
		}
	}
	if err := topo.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// A veth from the root namespace into the client's (as rpcarena's netns testbed adds) is gone the
// moment Close returns, not whenever the kernel dismantles the namespace it leads into.
func TestCloseTakesAVethFromTheRootNamespaceWithIt(t *testing.T) {
	topo := needTopology(t)
	root := fmt.Sprintf("rpa%dt", os.Getpid())
	if err := run("ip", "link", "add", root, "type", "veth", "peer", "name", "control", "netns", topo.Client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run("ip", "link", "del", root) })
	if err := topo.Close(); err != nil {
		t.Fatal(err)
	}
	if err := run("ip", "link", "show", root); err == nil {
		t.Errorf("%s is still in the root namespace after Close", root)
	}
}

func TestLinkNamesReadIpOutput(t *testing.T) {
	out := []byte("2: to-router@if3: <BROADCAST> mtu 1500\n5: control@if9: <UP> mtu 1500\n")
	if got := linkNames(out); fmt.Sprint(got) != "[to-router control]" {
		t.Errorf("linkNames = %v", got)
	}
}

func TestCleanupStaleRemovesADeadOwnersNamespaces(t *testing.T) {
	if Unavailable() != "" {
		t.Skip(Unavailable())
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%s%d-0-router", Prefix, dead.Process.Pid)
	mine := fmt.Sprintf("%s%d-999-router", Prefix, os.Getpid())
	for _, ns := range []string{stale, mine} {
		if err := run("ip", "netns", "add", ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { deleteNamespace(ns) })
	}
	removed, err := CleanupStale()
	if err != nil {
		t.Fatal(err)
	}
	if namespaceExists(stale) || !namespaceExists(mine) {
		t.Errorf("after CleanupStale (removed %v): %s exists %v (want false), %s exists %v (want true)",
			removed, stale, namespaceExists(stale), mine, namespaceExists(mine))
	}
}
