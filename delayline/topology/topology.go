// Package topology builds the emulated network: three network namespaces, client,
// router and server, joined by two veth pairs, with the router's FORWARD chain sending
// each direction to its own NFQUEUE, where the delayline command holds the packets.
//
//	client ns                router ns                          server ns
//	to-router 198.18.1.1 ── to-client 198.18.1.254  (queue 0 →)
//	                         to-server 198.18.2.254  (← queue 1) ── to-router 198.18.2.1
//
// The addresses are in 198.18.0.0/15, the range RFC 2544 sets aside for benchmarking;
// the namespaces have no route out, so every packet stays among them. Names are
// rpcarena-PID-SEQ-{client,router,server}: deleting the namespaces deletes the veths
// and the iptables rules with them, so a Topology leaves nothing behind once closed,
// and CleanupStale removes those of a process that died without closing.
package topology

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Addresses and queue numbers, the same in every topology (each has its own namespaces).
const (
	ClientAddr = "198.18.1.1"
	ServerAddr = "198.18.2.1"
	QueueUp    = 0 // client → server
	QueueDown  = 1 // server → client
	Prefix     = "rpcarena-"
)

// UnavailableError says the machine cannot build a topology; tests skip on it.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return e.Reason }

// Topology is one client-router-server set of namespaces.
type Topology struct {
	Client, Router, Server string // namespace names

	mu    sync.Mutex
	lines []*DelayLine
}

var (
	seq  atomic.Int64
	live sync.Map // *Topology → struct{}: what CloseAll closes
)

// Unavailable says why no topology can be built here, or "" if one can.
func Unavailable() string {
	if os.Geteuid() != 0 {
		return "network namespaces, veths and iptables need root"
	}
	for tool, pkg := range map[string]string{"ip": "iproute2", "iptables": "iptables", "ethtool": "ethtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("%s not found: apt-get install -y %s", tool, pkg)
		}
	}
	return ""
}

// New builds a topology; on any failure it removes what it had built.
func New() (*Topology, error) {
	if reason := Unavailable(); reason != "" {
		return nil, &UnavailableError{reason}
	}
	base := fmt.Sprintf("%s%d-%d-", Prefix, os.Getpid(), seq.Add(1))
	t := &Topology{Client: base + "client", Router: base + "router", Server: base + "server"}
	live.Store(t, struct{}{})
	if err := t.build(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func (t *Topology) build() error {
	for _, ns := range []string{t.Client, t.Router, t.Server} {
		if err := t.addNamespace(ns); err != nil {
			return err
		}
	}
	steps := [][]string{
		{"ip", "-n", t.Client, "link", "add", "to-router", "type", "veth", "peer", "name", "to-client", "netns", t.Router},
		{"ip", "-n", t.Server, "link", "add", "to-router", "type", "veth", "peer", "name", "to-server", "netns", t.Router},
		{"ip", "-n", t.Client, "addr", "add", ClientAddr + "/24", "dev", "to-router"},
		{"ip", "-n", t.Router, "addr", "add", "198.18.1.254/24", "dev", "to-client"},
		{"ip", "-n", t.Router, "addr", "add", "198.18.2.254/24", "dev", "to-server"},
		{"ip", "-n", t.Server, "addr", "add", ServerAddr + "/24", "dev", "to-router"},
	}
	for _, nd := range t.veths() {
		steps = append(steps, []string{"ip", "netns", "exec", nd[0], "ethtool", "-K", nd[1], "tso", "off", "gso", "off", "gro", "off"},
			[]string{"ip", "-n", nd[0], "link", "set", nd[1], "up"})
	}
	steps = append(steps,
		[]string{"ip", "-n", t.Client, "route", "add", "default", "via", "198.18.1.254"},
		[]string{"ip", "-n", t.Server, "route", "add", "default", "via", "198.18.2.254"},
		[]string{"ip", "netns", "exec", t.Router, "sysctl", "-qw", "net.ipv4.ip_forward=1"})
	if err := runAll(steps); err != nil {
		return err
	}
	return t.queueRules()
}

// addNamespace creates a namespace with its loopback up and IPv6 off (no stray
// neighbour discovery: only the IPv4 traffic under test crosses the router).
func (t *Topology) addNamespace(ns string) error {
	return runAll([][]string{
		{"ip", "netns", "add", ns},
		{"ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"},
		{"ip", "-n", ns, "link", "set", "lo", "up"},
	})
}

func (t *Topology) veths() [][2]string {
	return [][2]string{{t.Client, "to-router"}, {t.Router, "to-client"}, {t.Router, "to-server"}, {t.Server, "to-router"}}
}

// queueRules sends each direction's forwarded packets to its queue. There is no
// --queue-bypass: with no delay line bound, the packets are dropped, never let through.
func (t *Topology) queueRules() error {
	for _, argv := range t.ruleCommands("-A") {
		if err := run(argv...); err != nil {
			return &UnavailableError{fmt.Sprintf("the NFQUEUE target is unavailable (%v): modprobe nfnetlink_queue xt_NFQUEUE", err)}
		}
	}
	return nil
}

func (t *Topology) ruleCommands(op string) [][]string {
	var out [][]string
	for _, r := range [][2]string{{"to-client", fmt.Sprint(QueueUp)}, {"to-server", fmt.Sprint(QueueDown)}} {
		out = append(out, []string{"ip", "netns", "exec", t.Router, "iptables", "-w", "5", op, "FORWARD",
			"-i", r[0], "-j", "NFQUEUE", "--queue-num", r[1]})
	}
	return out
}

// SetDirect(true) takes the delay line out of the path: the router forwards every
// packet at once, to measure what the endpoints and veths cost by themselves.
// SetDirect(false) puts it back (the state New leaves).
func (t *Topology) SetDirect(direct bool) error {
	if direct {
		return runAll(t.ruleCommands("-D"))
	}
	return runAll(t.ruleCommands("-A"))
}

// Close stops the delay lines it started and deletes the namespaces (and with them the
// veths and iptables rules). It is safe to call more than once.
func (t *Topology) Close() error {
	t.mu.Lock()
	lines := t.lines
	t.lines = nil
	t.mu.Unlock()
	var errs []error
	for _, d := range lines {
		if _, err := d.Stop(); err != nil && !errors.Is(err, ErrStopped) {
			errs = append(errs, err)
		}
	}
	for _, ns := range []string{t.Client, t.Router, t.Server} {
		errs = append(errs, deleteNamespace(ns))
	}
	live.Delete(t)
	return errors.Join(errs...)
}

// CloseAll closes every topology this process has open: for a signal handler.
func CloseAll() {
	live.Range(func(key, _ any) bool {
		key.(*Topology).Close()
		return true
	})
}

// deleteNamespace kills what still runs inside it, deletes its veths, then deletes it; gone
// already is fine. A veth deleted takes its peer with it at once, in whatever namespace that is
// (a testbed's control veth in the root namespace): left to the namespace's own end, the kernel
// dismantles it when it gets to it, minutes later on a busy machine.
func deleteNamespace(ns string) error {
	if _, err := os.Stat("/run/netns/" + ns); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if out, err := output("ip", "netns", "pids", ns); err == nil {
		killAll(out)
	}
	if out, err := output("ip", "-n", ns, "-o", "link", "show", "type", "veth"); err == nil {
		for _, name := range linkNames(out) {
			run("ip", "-n", ns, "link", "del", name) // gone with its peer already is fine
		}
	}
	return run("ip", "netns", "del", ns)
}

// linkNames reads the interface names of `ip -o link` lines ("3: to-router@if2: <...> ...").
func linkNames(out []byte) []string {
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 {
			names = append(names, strings.SplitN(strings.TrimSuffix(fields[1], ":"), "@", 2)[0])
		}
	}
	return names
}

// command is an exec.Cmd that the kernel kills if this process dies first, and that is
// killed after `limit` (a stuck ip or iptables must not hold a test forever).
func command(limit time.Duration, argv ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	return cmd, cancel
}

func output(argv ...string) ([]byte, error) {
	cmd, cancel := command(10*time.Second, argv...)
	defer cancel()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, trim(out))
	}
	return out, nil
}

func run(argv ...string) error {
	_, err := output(argv...)
	return err
}

func runAll(steps [][]string) error {
	for _, argv := range steps {
		if err := run(argv...); err != nil {
			return err
		}
	}
	return nil
}

func trim(out []byte) string {
	const limit = 300
	if len(out) > limit {
		out = out[:limit]
	}
	return string(out)
}
