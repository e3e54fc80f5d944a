package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"rpcarena/delayline/topology"
)

// result is what one offered rate gave.
type result struct {
	sent           float64       // datagrams/s the sender managed (it may fall short of the rate asked)
	throughput     float64       // datagrams/s received
	lost           int           // offered but not received (dropped by the delay line, or still held at the end)
	p50, p99, max  time.Duration // one-way delay: the server's kernel receive time less the send time
	cpuUsPerPacket float64       // the delay line's on-CPU time (all threads) per datagram offered
	lateP99Us      float64       // the delay line's own view: verdict after release time, p99 (upper bound)
	waitP99Us      float64       // and kernel receive timestamp to user space, p99 (upper bound)
}

// extra is how much longer than the configured one-way delay `d` is, as a fraction.
func (r result) extra(d, oneWay time.Duration) float64 { return float64(d-oneWay) / float64(oneWay) }

func measureRate(o options, topo *topology.Topology, rate int) (result, error) {
	line, err := topo.StartDelayLine(topology.DelayLineOptions{Binary: o.binary, Link: o.spec, CPUs: o.cpus,
		RealTime: o.rt, MaxRuntime: o.step + time.Minute})
	if err != nil {
		return result{}, err
	}
	defer line.Stop() // a no-op once stopped below
	server, client, err := sockets(topo)
	if err != nil {
		return result{}, err
	}
	defer server.Close()
	defer client.Close()
	n := int(float64(rate) * o.step.Seconds())
	delays := make(chan []time.Duration, 1)
	go func() { delays <- receive(server, n) }()
	cpuBefore := cpuNs(line.Ready.PID)
	start := time.Now()
	if err := send(client, server.LocalAddr(), rate, n, start); err != nil {
		return result{}, err
	}
	sending := time.Since(start)
	time.Sleep(o.oneWay + 200*time.Millisecond) // the last datagrams are still on the link
	cpu := cpuNs(line.Ready.PID) - cpuBefore
	server.SetReadDeadline(time.Now())
	r := summarize(<-delays, n, sending, cpu)
	exit, err := line.Stop()
	if err != nil {
		return r, err
	}
	up := exit.Queues[0]
	r.lateP99Us, r.waitP99Us = up.Late.QuantileUs(0.99), up.Wait.QuantileUs(0.99)
	return r, nil
}

// sockets opens the receiver (with kernel receive timestamps and a large buffer) in the
// server namespace and the sender in the client namespace.
func sockets(topo *topology.Topology) (server, client *net.UDPConn, err error) {
	err = topology.In(topo.Server, func() (err error) {
		server, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(topology.ServerAddr)})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if err = receiveTimestamps(server); err == nil {
		err = topology.ForceReadBuffer(server, 16<<20)
	}
	if err == nil {
		err = topology.In(topo.Client, func() (err error) {
			client, err = net.ListenUDP("udp", &net.UDPAddr{IP: net.ParseIP(topology.ClientAddr)})
			return err
		})
	}
	if err != nil {
		server.Close()
	}
	return server, client, err
}

func receiveTimestamps(c *net.UDPConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return err
	}
	return sockErr
}

// send offers n datagrams at `rate`, in batches every 200 µs (Go's sleep rounds up to
// about a millisecond, so in practice a batch a millisecond), each carrying its wall-clock send time.
func send(c *net.UDPConn, to net.Addr, rate, n int, start time.Time) error {
	msg := make([]byte, 64)
	const tick = 200 * time.Microsecond
	for i := 0; i < n; {
		due := min(n, int(time.Since(start).Seconds()*float64(rate))+1)
		for ; i < due; i++ {
			binary.BigEndian.PutUint64(msg, uint64(time.Now().UnixNano()))
			if _, err := c.WriteTo(msg, to); err != nil {
				return fmt.Errorf("sending datagram %d: %w", i, err)
			}
		}
		time.Sleep(tick)
	}
	return nil
}

// receive collects one-way delays (kernel receive timestamp less send time, both wall
// clock: the receiver's own scheduling does not count) until n came or the deadline passes.
func receive(c *net.UDPConn, n int) []time.Duration {
	buf, oob := make([]byte, 2048), make([]byte, 128)
	out := make([]time.Duration, 0, n)
	for len(out) < n {
		_, oobn, _, _, err := c.ReadMsgUDP(buf, oob)
		if err != nil {
			break
		}
		if at, ok := kernelTime(oob[:oobn]); ok {
			out = append(out, at.Sub(time.Unix(0, int64(binary.BigEndian.Uint64(buf)))))
		}
	}
	return out
}

func kernelTime(oob []byte) (time.Time, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec, nsec := int64(binary.NativeEndian.Uint64(m.Data)), int64(binary.NativeEndian.Uint64(m.Data[8:]))
			return time.Unix(sec, nsec), true
		}
	}
	return time.Time{}, false
}

func summarize(delays []time.Duration, n int, sending time.Duration, cpuNs int64) result {
	r := result{lost: n - len(delays), sent: float64(n) / sending.Seconds(),
		throughput: float64(len(delays)) / sending.Seconds()}
	if n > 0 {
		r.cpuUsPerPacket = float64(cpuNs) / 1e3 / float64(n)
	}
	if len(delays) == 0 {
		return r
	}
	slices.Sort(delays)
	r.p50, r.p99, r.max = delays[len(delays)/2], delays[min(len(delays)-1, len(delays)*99/100)], delays[len(delays)-1]
	return r
}

// cpuNs is the on-CPU time of all threads of pid, in ns (/proc/PID/task/*/schedstat).
func cpuNs(pid int) int64 {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fields := strings.Fields(string(data)); len(fields) > 0 {
			ns, _ := strconv.ParseInt(fields[0], 10, 64)
			total += ns
		}
	}
	return total
}
