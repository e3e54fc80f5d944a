package topology

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"rpcarena/delayline/contract"
)

// DelayLineOptions starts the delayline command in a topology's router namespace.
type DelayLineOptions struct {
	Binary     string        // the delayline command (go build ./cmd/delayline)
	Link       string        // the link model: rtt=40ms,jitter=4ms,loss=0.1%,rate=100mbit,queue=1000
	Seed       uint64        // 0 means 1
	CPUs       string        // run it under taskset -c CPUs; "" leaves it unpinned
	RealTime   int           // run it under chrt -f RealTime (SCHED_FIFO 1-99); 0 leaves it SCHED_OTHER
	MaxRuntime time.Duration // its own safety net (-max-runtime); 0 means 10 minutes
}

// ErrStopped is returned by Stop when the delay line was stopped already.
var ErrStopped = errors.New("the delay line was stopped already")

// DelayLine is a running delayline process.
type DelayLine struct {
	Ready contract.Ready

	proc   *procPipes
	once   sync.Once
	exit   contract.Exit
	exitEr error
}

// readyTimeout bounds the wait for the ready line; stopTimeout the wait for the exit line.
const readyTimeout, stopTimeout = 10 * time.Second, 5 * time.Second

// StartDelayLine starts the delay line and waits for its ready line: from then on,
// traffic between client and server goes through it.
func (t *Topology) StartDelayLine(o DelayLineOptions) (*DelayLine, error) {
	argv := []string{"ip", "netns", "exec", t.Router}
	if o.CPUs != "" {
		argv = append(argv, "taskset", "-c", o.CPUs)
	}
	if o.RealTime > 0 {
		argv = append(argv, "chrt", "-f", fmt.Sprint(o.RealTime))
	}
	seed, maxRuntime := max(o.Seed, 1), o.MaxRuntime
	if maxRuntime == 0 {
		maxRuntime = 10 * time.Minute
	}
	argv = append(argv, o.Binary, "-link", o.Link, "-queues", fmt.Sprintf("%d,%d", QueueUp, QueueDown),
		"-seed", fmt.Sprint(seed), "-max-runtime", maxRuntime.String())
	p, err := startPiped(maxRuntime+stopTimeout, argv)
	if err != nil {
		return nil, err
	}
	d := &DelayLine{proc: p}
	if err := d.awaitReady(); err != nil {
		p.kill()
		return nil, err
	}
	t.mu.Lock()
	t.lines = append(t.lines, d)
	t.mu.Unlock()
	return d, nil
}

func (d *DelayLine) awaitReady() error {
	select {
	case line, ok := <-d.proc.lines:
		if !ok {
			return fmt.Errorf("the delay line exited before it was ready: %s", d.proc.stderrText())
		}
		if err := json.Unmarshal([]byte(line), &d.Ready); err != nil || d.Ready.Event != "ready" {
			return fmt.Errorf("the delay line did not start: %s %s", line, d.proc.stderrText())
		}
		return nil
	case <-time.After(readyTimeout):
		return fmt.Errorf("no ready line from the delay line within %v: %s", readyTimeout, d.proc.stderrText())
	}
}

// Stop asks the delay line to exit (SIGTERM) and returns its exit line; it kills it if
// it has not exited within a few seconds.
func (d *DelayLine) Stop() (contract.Exit, error) {
	err := ErrStopped
	d.once.Do(func() {
		d.exit, d.exitEr = d.stop()
		err = nil
	})
	if err != nil {
		return d.exit, err
	}
	return d.exit, d.exitEr
}

func (d *DelayLine) stop() (contract.Exit, error) {
	d.proc.cmd.Process.Signal(syscall.SIGTERM)
	defer d.proc.stdin.Close() // its lifeline, for a delay line that missed the signal
	var last string
	deadline := time.After(stopTimeout)
	for {
		select {
		case line, ok := <-d.proc.lines:
			if ok {
				last = line
				continue
			}
			var exit contract.Exit
			waitErr := d.proc.wait()
			if err := json.Unmarshal([]byte(last), &exit); err != nil || exit.Event != "exit" {
				return exit, fmt.Errorf("no exit line from the delay line (%v): %q %s", waitErr, last, d.proc.stderrText())
			}
			return exit, waitErr
		case <-deadline:
			d.proc.kill()
			return contract.Exit{}, fmt.Errorf("the delay line did not exit within %v of SIGTERM: killed", stopTimeout)
		}
	}
}

// procPipes is a child process with its stdin held open and its stdout read line by line.
type procPipes struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
}

// kill ends the process and reaps it.
func (p *procPipes) kill() {
	p.cmd.Process.Kill()
	p.wait()
}

func (p *procPipes) wait() error {
	defer p.cancel()
	return p.cmd.Wait()
}

func startPiped(limit time.Duration, argv []string) (*procPipes, error) {
	cmd, cancel := command(limit, argv...)
	p := &procPipes{lines: make(chan string, 64), stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	p.cmd, p.cancel, p.stdin = cmd, cancel, stdin
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			p.lines <- lines.Text()
		}
		close(p.lines)
	}()
	return p, nil
}

func (p *procPipes) stderrText() string { return strings.TrimSpace(p.stderr.String()) }

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return trim(b.buf.Bytes())
}
