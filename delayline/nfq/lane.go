// Package nfq holds packets that iptables sends to an NFQUEUE and gives each its
// verdict when a link.Direction says so: ACCEPT at its release time, DROP at once.
//
// One Lane is one queue number, one direction of the link. Packets stay in the kernel
// while held (only their first bytes are copied out), so a held packet costs a netlink
// message in and a verdict out. Release times are kept by a timerfd: Go's own timers
// sleep in whole milliseconds, a delay line cannot.
//
// Two systematic lags are taken out: a packet's arrival is the kernel's receive
// timestamp, not the later moment it reaches this program, and the timer is armed early
// by the median lateness of its recent wake-ups (see lead), so the median packet leaves
// the router on time.
package nfq

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	nfqueue "github.com/florianl/go-nfqueue/v2"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"rpcarena/delayline/link"
)

// Options configures one lane.
type Options struct {
	Queue          uint16      // the NFQUEUE number iptables sends this direction to
	Link           link.Config // the link model
	Seed, Stream   uint64      // the schedule's random stream
	KernelQueueLen uint32      // packets the kernel holds for us before it drops (no fail-open)
}

// copyRange is how much of each packet is copied out: enough for the IP header;
// the full length comes with the message (NFQA_CAP_LEN) when the packet is longer.
const copyRange = 128

// Lane is one direction of the delay line, bound to its NFQUEUE.
type Lane struct {
	opts   Options
	nf     *nfqueue.Nfqueue
	clock  monoClock
	timer  *releaseTimer
	cancel context.CancelFunc
	failed chan error
	done   chan struct{}

	mu       sync.Mutex // guards the fields below
	sched    *link.Direction
	held     heldHeap
	lead     lead
	stopping bool
	counts   Counters
}

// Open binds the lane's queue and starts holding its packets.
func Open(opts Options) (*Lane, error) {
	l := &Lane{opts: opts, clock: newMonoClock(), failed: make(chan error, 1), done: make(chan struct{}),
		sched: link.NewDirection(opts.Link, opts.Seed, opts.Stream)}
	if err := enableRxTimestamps(); err != nil {
		return nil, fmt.Errorf("cannot turn on receive timestamps: %w", err)
	}
	var err error
	if l.timer, err = newReleaseTimer(); err != nil {
		return nil, err
	}
	if err = l.bind(); err != nil {
		l.timer.close()
		return nil, fmt.Errorf("cannot bind NFQUEUE %d: %w (run as root inside the router's namespace; "+
			"is another program bound to this queue?)", opts.Queue, err)
	}
	go l.releaseLoop()
	return l, nil
}

func (l *Lane) bind() error {
	nf, err := nfqueue.Open(&nfqueue.Config{NfQueue: l.opts.Queue, MaxPacketLen: copyRange,
		MaxQueueLen: l.opts.KernelQueueLen, Copymode: nfqueue.NfQnlCopyPacket, AfFamily: unix.AF_INET})
	if err != nil {
		return err
	}
	l.nf = nf
	if err = tuneSocket(nf.Con); err == nil {
		var ctx context.Context
		ctx, l.cancel = context.WithCancel(context.Background())
		err = nf.RegisterWithErrorFunc(ctx, l.onPacket, l.onError)
	}
	if err != nil {
		nf.Close()
	}
	return err
}

// tuneSocket makes room for bursts (8 MiB, past rmem_max as root) and asks the kernel to
// drop silently rather than fail the socket with ENOBUFS; it counts those drops for us.
func tuneSocket(con *netlink.Conn) error {
	if err := con.SetOption(netlink.NoENOBUFS, true); err != nil {
		return err
	}
	raw, err := con.SyscallConn()
	if err != nil {
		return err
	}
	var sockErr error
	err = raw.Control(func(fd uintptr) {
		sockErr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)
	})
	return errors.Join(err, sockErr)
}

// onPacket runs for each queued packet, in the kernel's order.
func (l *Lane) onPacket(a nfqueue.Attribute) int {
	if a.PacketID == nil {
		return 0
	}
	id, size, now := *a.PacketID, packetLen(a), l.clock.now()
	at := arrival(a, now)
	l.mu.Lock()
	d := l.sched.Admit(time.Duration(at), size)
	l.counts.arrived(size, d.Drop, now-at)
	if d.Drop == link.Keep {
		heap.Push(&l.held, held{id: id, release: int64(d.Release), size: size})
		if l.held[0].id == id {
			l.timer.arm(int64(d.Release) - l.lead.ns)
		}
	}
	l.mu.Unlock()
	if d.Drop != link.Keep {
		l.verdict(id, nfqueue.NfDrop, false)
	}
	return 0
}

// arrival is when the packet reached the router: the kernel's receive timestamp (wall
// clock) moved onto the monotonic clock, or now if it has none or an implausible one.
// Getting from the kernel to this program takes tens to hundreds of microseconds.
func arrival(a nfqueue.Attribute, now int64) int64 {
	if a.Timestamp == nil {
		return now
	}
	age := time.Since(*a.Timestamp)
	if age < 0 || age > 100*time.Millisecond { // a step of the wall clock
		return now
	}
	return now - int64(age)
}

func packetLen(a nfqueue.Attribute) int {
	if a.CapLen != nil {
		return int(*a.CapLen)
	}
	if a.Payload != nil {
		return len(*a.Payload)
	}
	return 0
}

// onError keeps reading through timeouts and lost messages; anything else ends the lane.
func (l *Lane) onError(err error) int {
	var opErr *netlink.OpError
	if errors.As(err, &opErr) && (opErr.Timeout() || errors.Is(opErr.Err, unix.ENOBUFS)) {
		return 0
	}
	if l.isStopping() {
		return 1
	}
	l.fail(fmt.Errorf("NFQUEUE %d: receiving: %w", l.opts.Queue, err))
	return 1
}

func (l *Lane) verdict(id uint32, v int, batch bool) {
	var err error
	if batch {
		err = l.nf.SetVerdictBatch(id, v)
	} else {
		err = l.nf.SetVerdict(id, v)
	}
	if err != nil && !l.isStopping() {
		l.fail(fmt.Errorf("NFQUEUE %d: verdict for packet %d: %w", l.opts.Queue, id, err))
	}
}

func (l *Lane) fail(err error) {
	select {
	case l.failed <- err:
	default:
	}
}

// Failed reports the first error that stopped the lane.
func (l *Lane) Failed() <-chan error { return l.failed }

func (l *Lane) isStopping() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopping
}

// releaseLoop wakes at each release time and accepts the packets that are due.
func (l *Lane) releaseLoop() {
	defer close(l.done)
	for l.timer.wait() {
		ids, stop := l.takeDue()
		l.accept(ids)
		if stop {
			return
		}
	}
}

// takeDue pops the packets due by now (less the lead) and arms the timer for the next one.
func (l *Lane) takeDue() (ids []uint32, stop bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.now()
	if at := l.timer.armedFor; at > 0 && now >= at && !l.stopping {
		l.lead.observe(now - at)
	}
	for len(l.held) > 0 && l.held[0].release-l.lead.ns <= now {
		p := heap.Pop(&l.held).(held)
		l.counts.released(p.size, now-p.release)
		ids = append(ids, p.id)
	}
	l.timer.armedFor = 0
	if len(l.held) > 0 {
		l.timer.arm(l.held[0].release - l.lead.ns)
	}
	return ids, l.stopping
}

// accept gives the due packets their verdicts. Without reordering they are the oldest
// held packets, in id order, so one batch verdict (every id up to the last) does.
func (l *Lane) accept(ids []uint32) {
	if len(ids) == 0 {
		return
	}
	if !l.opts.Link.Reorder {
		l.verdict(ids[len(ids)-1], nfqueue.NfAccept, true)
		return
	}
	for _, id := range ids {
		l.verdict(id, nfqueue.NfAccept, false)
	}
}

// Stop unbinds the queue and returns the lane's counters. Packets still held are
// dropped by the kernel when the socket closes: the link fails closed, never open.
func (l *Lane) Stop() Counters {
	l.mu.Lock()
	l.stopping = true
	l.timer.arm(1) // in the past: wake the release loop now
	l.mu.Unlock()
	l.cancel()
	<-l.done
	l.nf.Close()
	l.timer.close()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.HeldAtExit = uint64(len(l.held))
	l.counts.LeadUs = float64(l.lead.ns) / 1000
	return l.counts
}

// Queue is the lane's NFQUEUE number.
func (l *Lane) Queue() uint16 { return l.opts.Queue }
