package calibration

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rpcarena/delayline/topology"
)

// rttCase is one configured round trip and how many samples to take of it.
type rttCase struct {
	rtt     time.Duration
	samples int
	short   bool // part of -short
}

var rttCases = []rttCase{
	{1 * time.Millisecond, 200, true},
	{10 * time.Millisecond, 100, true},
	{50 * time.Millisecond, 40, false},
	{200 * time.Millisecond, 15, false},
}

// warmup round trips are not counted (ARP, slow start of the first segments).
const warmup = 3

// tolerance is how far a median round trip may be from the configured RTT. The direct
// round trip (router forwarding at once, no delay line) is shown next to it: the part of
// the error the endpoints and veths make by themselves.
func tolerance(rtt time.Duration) time.Duration { return rtt/20 + 50*time.Microsecond }

// probes are the ways a round trip is measured: a TCP ping-pong between Go sockets, and ping.
var probes = []string{"tcp", "icmp"}

// attempts is how many times a case is measured before its error counts: a shared machine's
// scheduler can hold the delay line's wake-ups for a whole attempt (CI on 2 busy cores), while a
// delay line that is wrong misses every attempt. No round trip may ever come in early.
const attempts = 3

func TestRoundTripMatchesConfiguredRTT(t *testing.T) {
	topo, _ := network(t)
	base := directRoundTrips(t, topo)
	t.Logf("%-6s %-5s %4s %10s %10s %10s %10s %10s", "rtt", "probe", "n", "direct", "median", "added", "p99", "allowed±")
	for _, c := range rttCases {
		if testing.Short() && !c.short {
			continue
		}
		var misses []string
		for attempt := 1; attempt <= attempts; attempt++ {
			samples := map[string][]time.Duration{}
			withLink(t, "rtt="+c.rtt.String(), func(topo *topology.Topology) {
				samples["tcp"] = tcpPingPong(t, topo, c.samples)
				samples["icmp"] = icmpPing(t, topo, c)
			})
			misses = nil
			for _, probe := range probes {
				if s := samples[probe]; s != nil {
					misses = append(misses, checkRoundTrip(t, c.rtt, probe, s, base[probe])...)
				}
			}
			if len(misses) == 0 {
				break
			}
			t.Logf("rtt=%v attempt %d of %d off: %s", c.rtt, attempt, attempts, strings.Join(misses, "; "))
		}
		for _, miss := range misses {
			t.Error(miss)
		}
	}
}

// directRoundTrips is each probe's median round trip with no delay line in the path:
// what the endpoints, the veths and the router's forwarding cost by themselves.
func directRoundTrips(t *testing.T, topo *topology.Topology) map[string]time.Duration {
	if err := topo.SetDirect(true); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := topo.SetDirect(false); err != nil {
			t.Fatal(err)
		}
	}()
	base := map[string]time.Duration{"tcp": quantile(tcpPingPong(t, topo, 200), 0.5)}
	if icmp := icmpPing(t, topo, rttCase{samples: 200}); icmp != nil {
		base["icmp"] = quantile(icmp, 0.5)
	}
	return base
}

// checkRoundTrip logs one probe's round trips and returns what is wrong with them: a median
// beyond the tolerance, or a TCP round trip shorter than the configured RTT allows. (Not ICMP:
// ping reads the reply's kernel receive timestamp, which a packet forwarded through the
// namespaces can carry from before the delay line held it, so a few of its samples read short.)
func checkRoundTrip(t *testing.T, rtt time.Duration, probe string, samples []time.Duration, direct time.Duration) []string {
	median, p99 := quantile(samples, 0.5), quantile(samples, 0.99)
	added := median - direct
	t.Logf("%-6v %-5s %4d %10v %10v %10v %10v %10v", rtt, probe, len(samples), direct.Round(time.Microsecond),
		median.Round(time.Microsecond), added.Round(time.Microsecond), p99.Round(time.Microsecond), tolerance(rtt))
	var misses []string
	if (median - rtt).Abs() > tolerance(rtt) {
		misses = append(misses, fmt.Sprintf("rtt=%v: %s median round trip %v, more than %v from %v (direct: %v)",
			rtt, probe, median, tolerance(rtt), rtt, direct))
	}
	if least := slices.Min(samples); probe == "tcp" && least < rtt-tolerance(rtt) {
		misses = append(misses, fmt.Sprintf("rtt=%v: a %s round trip took %v: the delay line let a packet through early",
			rtt, probe, least))
	}
	return misses
}

// tcpPingPong times `n` round trips of a 64-byte message over one TCP connection
// (TCP_NODELAY, Go's default) from the client to an echo server.
func tcpPingPong(t *testing.T, topo *topology.Topology, n int) []time.Duration {
	conn := connect(t, topo, func(c net.Conn) { io.Copy(c, c) })
	defer conn.Close()
	msg := make([]byte, 64)
	var out []time.Duration
	for i := range n + warmup {
		start := time.Now()
		conn.SetDeadline(start.Add(5 * time.Second))
		if _, err := conn.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(conn, msg); err != nil {
			t.Fatal(err)
		}
		if i >= warmup {
			out = append(out, time.Since(start))
		}
	}
	return out
}

var pingTime = regexp.MustCompile(`time=([0-9.]+) ms`)

// icmpPing runs ping from the client namespace, if ping is installed (nil if not).
func icmpPing(t *testing.T, topo *topology.Topology, c rttCase) []time.Duration {
	if _, err := exec.LookPath("ping"); err != nil {
		t.Logf("ping not found (apt-get install -y iputils-ping): no ICMP check")
		return nil
	}
	interval := max(5*time.Millisecond, c.rtt/4)
	deadline := time.Duration(c.samples+warmup)*interval + c.rtt + 2*time.Second
	out, err := exec.Command("ip", "netns", "exec", topo.Client, "ping", "-n", "-c", strconv.Itoa(c.samples+warmup),
		"-i", strconv.FormatFloat(interval.Seconds(), 'f', 3, 64), "-w", strconv.Itoa(int(deadline.Seconds())+1),
		topology.ServerAddr).Output()
	if err != nil {
		t.Fatalf("ping: %v: %s", err, out)
	}
	var samples []time.Duration
	for i, m := range pingTime.FindAllSubmatch(out, -1) {
		ms, _ := strconv.ParseFloat(string(m[1]), 64)
		if i >= warmup {
			samples = append(samples, time.Duration(ms*float64(time.Millisecond)))
		}
	}
	return samples
}

// connect dials from the client namespace to a one-connection server in the server namespace.
func connect(t *testing.T, topo *topology.Topology, serve func(net.Conn)) net.Conn {
	t.Helper()
	var ln net.Listener
	if err := topology.In(topo.Server, func() (err error) { ln, err = net.Listen("tcp", topology.ServerAddr+":0"); return }); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer ln.Close()
		if c, err := ln.Accept(); err == nil {
			serve(c)
			c.Close()
		}
	}()
	var conn net.Conn
	err := topology.In(topo.Client, func() (err error) { conn, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); return })
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	return conn
}

func quantile(samples []time.Duration, q float64) time.Duration {
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func TestBulkThroughputMatchesRate(t *testing.T) {
	network(t)
	const rateBits = 20e6
	transfer, warm := 3*time.Second, 500*time.Millisecond
	if testing.Short() {
		transfer = 1500 * time.Millisecond
	}
	var goodput, expected float64
	exit := withLink(t, "rtt=10ms,rate=20mbit,queue=100", func(topo *topology.Topology) {
		mss := make(chan int, 1)
		conn := connect(t, topo, func(c net.Conn) { mss <- sendFor(c, transfer+time.Second) })
		defer conn.Close()
		goodput = receiveRate(t, conn, warm, transfer)
		// A full segment is one 1500-byte IP packet (the veth's MTU) carrying MSS bytes.
		expected = rateBits * float64(<-mss) / 1500
	})
	t.Logf("rate 20mbit: goodput %.2f Mbit/s, expected %.2f Mbit/s (rate x MSS/MTU), %.1f%% off; "+
		"server->client: %d packets, %d dropped by the queue",
		goodput/1e6, expected/1e6, 100*(goodput/expected-1), exit.Queues[1].Packets, exit.Queues[1].DroppedQueue)
	if math.Abs(goodput/expected-1) > 0.05 {
		t.Errorf("goodput %.2f Mbit/s is more than 5%% from %.2f Mbit/s", goodput/1e6, expected/1e6)
	}
}

// sendFor writes as fast as the connection takes for `d`, then returns the sender's MSS.
func sendFor(c net.Conn, d time.Duration) int {
	buf := make([]byte, 64<<10)
	c.SetWriteDeadline(time.Now().Add(d))
	for {
		if _, err := c.Write(buf); err != nil {
			break
		}
	}
	return tcpMSS(c)
}

func tcpMSS(c net.Conn) int {
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return 1448
	}
	mss := 1448
	raw.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			mss = int(info.Snd_mss)
		}
	})
	return mss
}

// receiveRate reads for `until` and returns the bits per second received after `warm`.
func receiveRate(t *testing.T, c net.Conn, warm, until time.Duration) float64 {
	buf := make([]byte, 64<<10)
	start := time.Now()
	var counted int
	var from time.Time
	c.SetReadDeadline(start.Add(until))
	for {
		n, err := c.Read(buf)
		now := time.Now()
		if now.Sub(start) >= warm {
			if from.IsZero() {
				from = now
			} else {
				counted += n
			}
		}
		if err != nil || now.Sub(start) >= until {
			return float64(counted*8) / time.Since(from).Seconds()
		}
	}
}

func TestLossRateAndOrder(t *testing.T) {
	network(t)
	const n, p = 3000, 0.05
	var received []uint32
	exit := withLink(t, "rtt=10ms,jitter=2ms,loss=5%", func(topo *topology.Topology) {
		received = udpBurst(t, topo, n, 100*time.Microsecond, 300*time.Millisecond)
	})
	lost := n - len(received)
	lo, hi := binomial99(n, p)
	t.Logf("loss=5%%: %d of %d datagrams lost (99%% interval [%.0f, %.0f]); delay line counted %d lost, %d kernel drops, %d held at exit",
		lost, n, lo, hi, exit.Queues[0].DroppedLoss, exit.Queues[0].QueueFull+exit.Queues[0].SocketFull, exit.Queues[0].HeldAtExit)
	if float64(lost) < lo || float64(lost) > hi {
		t.Errorf("%d lost of %d: outside the binomial 99%% interval [%.0f, %.0f] for p=%v", lost, n, lo, hi, p)
	}
	// Every datagram the receiver missed was dropped by the delay line's loss draw. Queue 0 also
	// carries the topology's few other packets (the link's own probes), which the draw may drop too.
	const others = 3
	if q := exit.Queues[0]; q.DroppedLoss < uint64(lost) || q.Dropped() > uint64(lost)+others ||
		q.Dropped() != q.DroppedLoss {
		t.Errorf("the receiver lost %d, the delay line dropped %d (%d by loss)", lost, q.Dropped(), q.DroppedLoss)
	}
	for i := 1; i < len(received); i++ {
		if received[i] <= received[i-1] {
			t.Fatalf("datagram %d arrived after %d: reordered (jitter 2ms, 0.1ms apart)", received[i], received[i-1])
		}
	}
}

// udpBurst sends n numbered datagrams from client to server, `gap` apart (in 1 ms batches),
// and returns the numbers received, in arrival order, waiting `drain` after the last send.
func udpBurst(t *testing.T, topo *topology.Topology, n int, gap, drain time.Duration) []uint32 {
	var server, client net.PacketConn
	if err := topology.In(topo.Server, func() (err error) { server, err = net.ListenPacket("udp", topology.ServerAddr+":0"); return }); err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if err := topology.ForceReadBuffer(server.(*net.UDPConn), 8<<20); err != nil {
		t.Fatal(err)
	}
	if err := topology.In(topo.Client, func() (err error) { client, err = net.ListenPacket("udp", topology.ClientAddr+":0"); return }); err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	got := make(chan []uint32, 1)
	go func() { got <- receiveNumbers(server, n) }()
	sendNumbered(t, client, server.LocalAddr(), n, gap)
	time.Sleep(drain)
	server.SetReadDeadline(time.Now()) // end the receiver
	return <-got
}

func sendNumbered(t *testing.T, c net.PacketConn, to net.Addr, n int, gap time.Duration) {
	msg := make([]byte, 64)
	start := time.Now()
	for i := range n {
		if wait := time.Duration(i)*gap - time.Since(start); wait > time.Millisecond {
			time.Sleep(wait)
		}
		binary.BigEndian.PutUint32(msg, uint32(i))
		if _, err := c.WriteTo(msg, to); err != nil {
			t.Fatal(err)
		}
	}
}

func receiveNumbers(c net.PacketConn, n int) []uint32 {
	var out []uint32
	buf := make([]byte, 2048)
	for len(out) < n {
		if _, _, err := c.ReadFrom(buf); err != nil {
			break
		}
		out = append(out, binary.BigEndian.Uint32(buf))
	}
	return out
}

// binomial99 is the 99% interval of a binomial count (normal approximation, z = 2.576).
func binomial99(n int, p float64) (lo, hi float64) {
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	return mean - 2.576*sd, mean + 2.576*sd
}
